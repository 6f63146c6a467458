@testable import DeviceStore
import Testing

@Suite struct SQLiteConfigurationTests {
    /// SQLite would otherwise take 20 pages (~87 KB, all written to, so all
    /// resident) per connection at its first read. The setting only takes
    /// before SQLite initialises, so this fails if anything opens a database
    /// before the store configures it.
    @Test func theStoresPageCacheGrowsAsPagesAreUsed() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        _ = try store.devices()
        #expect(SQLiteDatabase.pageCacheOnDemand)
    }
}
