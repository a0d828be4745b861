import Foundation
import FloeSync
import JWTKit

/// Where the server's verification keys come from; read again on SIGHUP.
struct KeySource: Sendable {
    /// A file holding an HS256 shared secret (its bytes, a trailing newline dropped).
    var hmacSecretFile: String?
    /// A PEM file holding an ES256 or RS256 public key, with its algorithm.
    var publicKeyFile: String?
    var publicKeyAlgorithm: String = "ES256"
    /// A JWKS file (keys chosen by the token's `kid`).
    var jwksFile: String?

    var isEmpty: Bool { hmacSecretFile == nil && publicKeyFile == nil && jwksFile == nil }

    /// The keys, and the algorithm each `kid` (nil: the default key) is bound to.
    func load() async throws -> (JWTKeyCollection, [String?: String]) {
        let keys = JWTKeyCollection()
        var algorithms: [String?: String] = [:]
        if let path = hmacSecretFile {
            var secret = try String(contentsOfFile: path, encoding: .utf8)
            while secret.hasSuffix("\n") || secret.hasSuffix("\r") { secret.removeLast() }
            guard secret.utf8.count >= 32 else { throw ConfigurationError("the HS256 secret in \(path) is shorter than 32 bytes") }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            algorithms[nil] = "HS256"
        }
        if let path = publicKeyFile {
            let pem = try String(contentsOfFile: path, encoding: .utf8)
            switch publicKeyAlgorithm {
            case "ES256":
                let key = try ES256PublicKey(pem: pem)
                await keys.add(ecdsa: key)
            case "RS256":
                let key = try Insecure.RSA.PublicKey(pem: pem)
                await keys.add(rsa: key, digestAlgorithm: .sha256)
            default: throw ConfigurationError("the key algorithm is ES256 or RS256, not \(publicKeyAlgorithm)")
            }
            algorithms[nil] = publicKeyAlgorithm
        }
        if let path = jwksFile {
            let json = try String(contentsOfFile: path, encoding: .utf8)
            let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json.utf8))
            for key in jwks.keys {
                guard let kid = key.keyIdentifier?.string, let algorithm = key.algorithm?.rawValue,
                      ["HS256", "ES256", "RS256"].contains(algorithm) else {
                    throw ConfigurationError("every key in \(path) needs a kid and an alg of HS256, ES256 or RS256")
                }
                algorithms[kid] = algorithm
            }
            try await keys.add(jwks: jwks)
        }
        return (keys, algorithms)
    }
}

struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Verifies the tokens connections present: the signature with the configured keys (the
/// algorithm is the key's, whatever the token's header claims), then expiry, not-before,
/// issuer and audience. Keys can be replaced while the server runs (SIGHUP).
actor Authenticator {
    private var keys: JWTKeyCollection
    private var algorithms: [String?: String]
    let source: KeySource
    let issuer: String
    let audience: String

    init(source: KeySource, issuer: String, audience: String) async throws {
        (keys, algorithms) = try await source.load()
        self.source = source
        self.issuer = issuer
        self.audience = audience
    }

    /// Reads the key files again; on failure the keys in use stay.
    func reload() async throws {
        (keys, algorithms) = try await source.load()
    }

    /// The token of a request: `Authorization: Bearer …`, or the `access_token` query parameter
    /// (weaker: addresses end up in logs).
    static func token(authorization: String?, query: String?) -> String? {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("access_token=") {
            return String(pair.dropFirst("access_token=".count)).removingPercentEncoding
        }
        return nil
    }

    /// The token's claims, or why it is refused.
    func verify(_ token: String?, now: Date = Date()) async throws(SyncError) -> [String: SyncValue] {
        guard let token, !token.isEmpty else { throw .unauthenticated(reason: "no token: send 'Authorization: Bearer <JWT>'") }
        guard token.utf8.count <= 16 << 10 else { throw .unauthenticated(reason: "the token is longer than 16 KiB") }
        let header = try Self.header(of: token)
        guard let algorithm = header.alg else { throw .unauthenticated(reason: "the token's header names no algorithm") }
        guard let expected = algorithms[header.kid] ?? (header.kid == nil ? nil : algorithms[nil]) else {
            throw .unauthenticated(reason: header.kid.map { "no key has the id '\($0)'" } ?? "no default key: the token needs a kid")
        }
        guard algorithm == expected else {
            throw .unauthenticated(reason: "the token is signed with '\(algorithm)', its key verifies \(expected) only")
        }
        let payload: TokenPayload
        do {
            payload = try await keys.verify(token, as: TokenPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .unauthenticated(reason: "the token's signature does not verify")
        } catch {
            throw .unauthenticated(reason: "the token does not verify: \(error)")
        }
        let claims = payload.claims
        guard let expiry = Self.seconds(claims["exp"]) else { throw .unauthenticated(reason: "the token has no expiry (exp)") }
        guard expiry > now.timeIntervalSince1970 else {
            throw .unauthenticated(reason: "the token expired at \(Date(timeIntervalSince1970: expiry))")
        }
        if let notBefore = Self.seconds(claims["nbf"]), notBefore > now.timeIntervalSince1970 {
            throw .unauthenticated(reason: "the token is not valid before \(Date(timeIntervalSince1970: notBefore))")
        }
        guard claims["iss"] == .string(issuer) else {
            throw .unauthenticated(reason: "the token's issuer \(claims["iss"]?.description ?? "(none)") is not \"\(issuer)\"")
        }
        let audiences: [SyncValue] = switch claims["aud"] {
        case .list(let list)?: list
        case let single?: [single]
        case nil: []
        }
        guard audiences.contains(.string(audience)) else {
            throw .unauthenticated(reason: "the token's audience \(claims["aud"]?.description ?? "(none)") does not include \"\(audience)\"")
        }
        guard case .string? = claims["sub"] else { throw .unauthenticated(reason: "the token has no subject (sub)") }
        return claims
    }

    static func seconds(_ value: SyncValue?) -> Double? {
        switch value {
        case .int(let int)?: Double(int)
        case .double(let double)?: double
        default: nil
        }
    }

    /// The header fields the server checks before verifying (base64url JSON; no cryptography).
    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private static func header(of token: String) throws(SyncError) -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .unauthenticated(reason: "the token is not three base64url parts") }
        var base64 = parts[0].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .unauthenticated(reason: "the token's header is not base64url JSON")
        }
        return header
    }
}

/// A verified token's payload: all its claims (the checks on them follow verification, so that
/// each refusal can say which claim failed).
struct TokenPayload: JWTPayload {
    var claims: [String: SyncValue]

    init(from decoder: any Decoder) throws {
        claims = try SyncClaims(from: decoder).values
    }

    func encode(to encoder: any Encoder) throws {
        // Tokens are made by the identity provider, never by the server.
        throw EncodingError.invalidValue(claims, .init(codingPath: [], debugDescription: "the server does not sign tokens"))
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
