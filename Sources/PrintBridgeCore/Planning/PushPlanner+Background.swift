/// The silent background push's allowance: Apple asks for no more than two
/// or three an hour to a phone, and throttles (or drops) beyond that.
extension PushPlanner {
    /// Moves the background pushes of `plan` over a phone's allowance
    /// (`backgroundLimit` within a rolling `backgroundWindow`) to
    /// `plan.limited`, and remembers when the others were made.
    ///
    /// The memory is this process's only: a restart gives every phone its
    /// whole allowance again (at most one hour's worth more; APNs throttles
    /// what is left over).
    mutating func limitBackground(_ plan: inout Plan) {
        guard plan.pushes.contains(where: { $0.kind == .background }) else { return }
        var kept: [Push] = []
        for push in plan.pushes {
            guard push.kind == .background else {
                kept.append(push)
                continue
            }
            let windowStart = push.createdAt + -configuration.backgroundWindow
            var times = backgroundSent[push.deviceID, default: []].filter { $0 > windowStart }
            if times.count >= configuration.backgroundLimit {
                plan.limited.append(push)
            } else {
                times.append(push.createdAt)
                kept.append(push)
            }
            backgroundSent[push.deviceID] = times
        }
        plan.pushes = kept
    }
}
