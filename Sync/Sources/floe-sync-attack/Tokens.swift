import Foundation
import JWTKit

/// The claims the attacks put in their tokens (absent ones are left out).
struct Claims: JWTPayload {
    var sub: String?
    var exp: Int?
    var nbf: Int?
    var iss: String?
    var aud: String?
    var role: String?
    var teams: [String]?

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// A token that is valid now for an hour, for `user`.
    static func valid(_ user: String, role: String? = nil, teams: [String]? = nil) -> Claims {
        let now = Int(Date().timeIntervalSince1970)
        return Claims(sub: user, exp: now + 3600, nbf: now - 60, iss: "floe-test", aud: "floe-sync", role: role, teams: teams)
    }
}

/// Signs tokens the way an identity provider would (and the ways an attacker would).
struct Minter {
    let hmacSecret: String
    let ecPrivate: String
    let rsaPrivate: String
    let rsaPublic: String

    init(directory: String) throws {
        func read(_ name: String) throws -> String { try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8) }
        var secret = try read("hs256.secret")
        while secret.hasSuffix("\n") { secret.removeLast() }
        hmacSecret = secret
        // The key pairs are optional: a directory with only the secret mints HS256 tokens.
        ecPrivate = (try? read("es256.pem")) ?? ""
        rsaPrivate = (try? read("rs256.pem")) ?? ""
        rsaPublic = (try? read("rs256.pub.pem")) ?? ""
    }

    /// HS256 with the server's secret (its default key: no kid).
    func hs256(_ claims: Claims, secret: String? = nil) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret ?? hmacSecret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    /// ES256 with the private key of the JWKS's "es" key.
    func es256(_ claims: Claims, kid: String = "es") async throws -> String {
        let keys = JWTKeyCollection()
        let key = try ES256PrivateKey(pem: ecPrivate)
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// RS256 with the private key of the JWKS's "rs" key.
    func rs256(_ claims: Claims, kid: String = "rs", pem: String? = nil) async throws -> String {
        let keys = JWTKeyCollection()
        let key = try Insecure.RSA.PrivateKey(pem: pem ?? rsaPrivate)
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// The HS/RS confusion: HS256 keyed with the RSA key's public PEM, naming the RSA key's kid.
    func confused(_ claims: Claims) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: rsaPublic), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "rs"))
        return try await keys.sign(claims, kid: JWKIdentifier(string: "rs"))
    }

    /// `alg: none`, no signature.
    func unsigned(_ claims: Claims) throws -> String {
        let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8)
        return Self.base64URL(header) + "." + Self.base64URL(try JSONEncoder().encode(claims)) + "."
    }

    /// A valid HS256 token whose payload was changed after signing (another user).
    func tampered(_ claims: Claims, as user: String) async throws -> String {
        let token = try await hs256(claims)
        var forged = claims
        forged.sub = user
        let parts = token.split(separator: ".")
        return parts[0] + "." + Self.base64URL(try JSONEncoder().encode(forged)) + "." + parts[2]
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWKS of the public halves of the ES256 and RS256 keys in `directory`, as kids "es" and "rs".
    static func jwks(directory: String, rsaPublicFile: String = "rs256.pub.pem", rsaKid: String = "rs") throws -> String {
        let ec = try ES256PublicKey(pem: String(contentsOfFile: "\(directory)/es256.pub.pem", encoding: .utf8))
        let rsa = try Insecure.RSA.PublicKey(pem: String(contentsOfFile: "\(directory)/\(rsaPublicFile)", encoding: .utf8))
        let (modulus, exponent) = try rsa.getKeyPrimitives()
        guard let (x, y) = ec.parameters else { throw CocoaError(.coderInvalidValue) }
        return """
            {"keys":[{"kty":"EC","crv":"P-256","kid":"es","alg":"ES256","use":"sig","x":"\(x)","y":"\(y)"},\
            {"kty":"RSA","kid":"\(rsaKid)","alg":"RS256","use":"sig","n":"\(base64URL(modulus))","e":"\(base64URL(exponent))"}]}
            """
    }
}
