import CLibWebSockets

/// A libwebsockets timer (`lws_sorted_usec_list_t`) with, right after it in
/// the same allocation, the link it belongs to: the callback is given only
/// the timer's address.
final class LinkTimer {

    let list: UnsafeMutablePointer<lws_sorted_usec_list_t>
    private static let ownerOffset = MemoryLayout<lws_sorted_usec_list_t>.stride

    init(owner: HomeAssistantLink) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Self.ownerOffset + 8, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.ownerOffset + 8)
        // Unretained: the link owns its timers and cancels them before it goes.
        memory.storeBytes(of: Unmanaged.passUnretained(owner).toOpaque(), toByteOffset: Self.ownerOffset, as: UnsafeMutableRawPointer.self)
        list = memory.bindMemory(to: lws_sorted_usec_list_t.self, capacity: 1)
    }

    deinit { UnsafeMutableRawPointer(list).deallocate() }

    static func fired(_ list: UnsafeMutablePointer<lws_sorted_usec_list_t>) {
        let memory = UnsafeRawPointer(list)
        let owner = memory.load(fromByteOffset: ownerOffset, as: UnsafeMutableRawPointer.self)
        Unmanaged<HomeAssistantLink>.fromOpaque(owner).takeUnretainedValue().timerFired()
    }
}

func linkTimerCallback(_ list: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    if let list { LinkTimer.fired(list) }
}
