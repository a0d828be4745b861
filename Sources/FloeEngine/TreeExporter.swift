@_spi(Engine) import FloeStorage

/// Writes a version that lives only in memory into a new file (`writeCopy` of an in-memory store).
package enum TreeExporter {
    package static func write(root: GroupNode, version: UInt64, to path: String) throws(FloeError) -> StorageFile {
        let target = try StorageFile.open(path: path, readOnly: false, durability: .full)
        var chunk = target.makeChunk()
        func export(_ node: any TreeNode) throws(FloeError) -> UInt64 {
            var image = node.image()
            let slots = node.childSlots()
            for index in slots.indices {
                if let slot = slots[index] { image.children[index] = try export(try slot.loadNode()) } else { image.children[index] = 0 }
            }
            return chunk.append(image)
        }
        let rootOffset = try export(root)
        let live = chunk.nextOffset - chunk.start - UInt64(ChunkHeader.size)
        try target.append(&chunk, version: max(version, 1), rootRef: rootOffset, liveBytes: live)
        try target.sync()
        return target
    }
}
