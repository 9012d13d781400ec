/// A stored disparity map written for other tools (`extract --format exr|pfm|npy`): 32-bit
/// floats, diopters or (as depth) metres; NaN where there is no depth, +inf metres at 0 D.
package enum DisparityExport {
    package enum Format: String, Sendable, CaseIterable {
        /// One FLOAT channel `Z` (ZIP-compressed scanlines), written by OpenEXR's own library.
        case exr
        /// One-channel little-endian PFM.
        case pfm
        /// NumPy `.npy`, `<f4`, shape (height, width).
        case npy
    }

    package static func encode(_ map: DisparityMap, format: Format, asDepth: Bool) throws(FormatError) -> [UInt8] {
        let values = asDepth ? map.values.map { $0.isNaN ? Float.nan : 1 / $0 } : map.values
        switch format {
        case .pfm:
            return PFM.write(DisparityMap(width: map.width, height: map.height, values: values))
        case .npy:
            return npy(values, width: map.width, height: map.height)
        case .exr:
            do { return try OpenEXRFile.encode(channel: "Z", values: values, width: map.width, height: map.height) } catch {
                throw FormatError(error.description)
            }
        }
    }

    /// A version-1 `.npy` of little-endian float32, C order.
    static func npy(_ values: [Float], width: Int, height: Int) -> [UInt8] {
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(height), \(width)), }"
        // Magic (6) + version (2) + length (2) + header + newline is a multiple of 64.
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var out: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
        out += Array(header.utf8)
        out.reserveCapacity(out.count + values.count * 4)
        for v in values {
            let bits = v.bitPattern
            out += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
        }
        return out
    }
}
