package journal

// Measure names a figure the loops take as they run.
type Measure string

// Measures.
const (
	// MeasureSchedulingDecision is how long a pod waited, once found provisionable, for a solve
	// to first decide about it (seconds).
	MeasureSchedulingDecision Measure = "SchedulingDecision"
	// MeasureUnschedulablePods is how many pods the latest solve of Controller could not place.
	MeasureUnschedulablePods Measure = "UnschedulablePods"
	// MeasureIgnoredPods is how many pending pods the latest provisioning pass ignored (their
	// node selectors cannot be honoured).
	MeasureIgnoredPods Measure = "IgnoredPods"
	// MeasureEligibleNodes is how many nodes a disruption Method could consider in a pass.
	MeasureEligibleNodes Measure = "EligibleNodes"
	// MeasureEvaluation is how long a disruption Method took to evaluate in a pass (seconds).
	MeasureEvaluation Measure = "Evaluation"
	// MeasureConsolidationMove is a consolidation move weighed for a NodePool: its consolidation
	// Policy and whether the move was approved (Decision).
	MeasureConsolidationMove Measure = "ConsolidationMove"
	// MeasureConsolidationScore is a move's score (Value) for a Balanced NodePool, and whether it
	// passed that NodePool's bar (Decision).
	MeasureConsolidationScore Measure = "ConsolidationScore"
	// MeasureLaunchFailure is one offering a launch failed on: its Zone, ZoneID and
	// CapacityType, and the failure's Reason in Karpenter's words.
	MeasureLaunchFailure Measure = "LaunchFailure"
	// MeasureTerminationFailure is a termination the cloud refused, in a Zone and ZoneID.
	MeasureTerminationFailure Measure = "TerminationFailure"
	// MeasureUserDataBytes is the size of the user data a NodeClass renders (Value, decoded
	// bytes).
	MeasureUserDataBytes Measure = "UserDataBytes"
	// MeasureNodeClassGone says a NodeClass is deleted: its figures go with it.
	MeasureNodeClassGone Measure = "NodeClassGone"
	// MeasureBatchSize and MeasureBatchTime are how many requests a Batcher's batch took and how
	// long its window was open (seconds).
	MeasureBatchSize Measure = "BatchSize"
	MeasureBatchTime Measure = "BatchTime"
	// MeasureSolveQueue is how many pods wait in the queue of a running solve of Controller
	// (SchedulingID names the solve), MeasureSolveRunning how long it has run (seconds), and
	// MeasureSolveDone that it ended.
	MeasureSolveQueue   Measure = "SolveQueue"
	MeasureSolveRunning Measure = "SolveRunning"
	MeasureSolveDone    Measure = "SolveDone"
)

// Measurement is a figure a loop takes each time it runs, for metrics: how long a pod waited
// for a scheduling decision, how many nodes a disruption method could consider. Measurements
// repeat on every pass and decide nothing, so the journal neither keeps nor shows them; it
// hands them to the sinks that are Meters.
type Measurement struct {
	Measure Measure
	// The fields below qualify the figure where it has them.
	Controller, Method, NodePool, Policy, Decision string
	Zone, ZoneID, CapacityType, Reason             string
	NodeClass, Batcher, SchedulingID               string
	Value                                          float64
}

// Meter is a sink that also takes measurements.
type Meter interface {
	Measure(Measurement)
}

// Measure hands a measurement to the sinks that are Meters.
func (j *Journal) Measure(m Measurement) {
	j.mu.RLock()
	sinks := j.sinks
	j.mu.RUnlock()
	for _, s := range sinks {
		if meter, ok := s.(Meter); ok {
			meter.Measure(m)
		}
	}
}
