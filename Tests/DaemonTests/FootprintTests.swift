import Foundation
import TestSupport
import Testing

/// What keeps the agent's memory small beyond its own code.
@Suite struct FootprintTests {
    /// The agent's memory must not grow with the process's file limit:
    /// libwebsockets sizes two tables by it (16 bytes per possible
    /// descriptor) unless told otherwise, and Docker starts containers with a
    /// limit of 1,048,576.
    @Test func theHALinkDoesNotSizeTablesByTheFileLimit() throws {
        let printbridge = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
        let helper = URL(fileURLWithPath: printbridge).deletingLastPathComponent().appendingPathComponent("LinkFootprint").path
        try #require(FileManager.default.isExecutableFile(atPath: helper), "LinkFootprint helper not built")
        let result = try CommandRunner.execute(helper, [], directory: DaemonTests.root)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int], "\(result.stdout)")
        let fileLimit = try #require(report["fileLimit"]), bytes = try #require(report["bytes"])
        let readBuffer = try #require(report["readBuffer"])
        // Below 8,192 files the tables (2 x 16 bytes a file: 256 KB there)
        // would be too small to tell apart.
        try #require(fileLimit >= 8192, "the hard file limit (ulimit -Hn) is \(fileLimit)")
        // Its read buffer (resident by design) and at most 64 KB besides.
        #expect(bytes < readBuffer + 64 << 10, "the link took \(bytes) bytes (read buffer \(readBuffer)) with \(fileLimit) files allowed")
    }
}
