/// "First Layer Done" (issue 53): most failures show in the first layer,
/// so a picture of it is worth an alert, to the phones that turned it on
/// (`onFirstLayer`, off by default).
///
/// The signal is the layer the printer reports (`PrinterField.currentLayer`)
/// reaching 2 from 1 or less while the print runs: ha-bambulab's
/// `current_layer` sensor (bambu_lab/definitions.py, `print_job.current_layer`,
/// pybambu/models.py reads MQTT's `layer_num`, which counts from 1 and is 0
/// while the printer prepares) and Moonraker's `current_layer`. On an X1 the
/// first-layer inspection (pybambu/const.py stage 10,
/// `inspecting_first_layer`) runs after that layer; its failure is a pause of
/// its own (stage 34, `paused_first_layer_error`, told as the pause's
/// reason). HA's OctoPrint integration reports no layer (only the job's
/// percentage and times): there is no first-layer signal for it, and a
/// percentage is not one (a first layer is 0.5 % of a tall print and 20 % of
/// a plate), so OctoPrint printers get no such alert.
///
/// A reading that crosses from ≤ 1 to ≥ 2 is the one moment
/// (layers only grow within a print, a restart's snapshot is a baseline, not
/// a crossing, and `unavailable` never changes the cache); a new print's
/// layer starts again at 0. A print seen first past its first layer is not
/// told; one the agent saw begin whose layer passed 1 while its start
/// settled is told with the start (`apply(.started)`).
///
/// Once a print in any case: a layer that reads 0 again mid-print (an
/// integration reloaded, the printer reconnected) and then its real value
/// is no second first layer (`firstLayerTold`, in memory).
extension PushPlanner {
    mutating func checkFirstLayer(_ change: PrinterChange, state: PrinterNotificationState, builder: inout PushBuilder) {
        guard state.lastStatus == .running, state.held == nil,
            let layer = change.current.currentLayer, layer >= 2, (change.previous.currentLayer ?? 0) <= 1
        else { return }
        tellFirstLayer(state: state, builder: &builder)
    }

    /// "First Layer Done" for the print `state` has, unless told for it already.
    mutating func tellFirstLayer(state: PrinterNotificationState, builder: inout PushBuilder) {
        if let printID = state.printID {
            guard firstLayerTold[builder.prefix] != printID else { return }
            firstLayerTold[builder.prefix] = printID
        }
        builder.alert(.firstLayer, status: .running)
    }
}
