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
)

// Measurement is a figure a loop takes each time it runs, for metrics: how long a pod waited
// for a scheduling decision, how many nodes a disruption method could consider. Measurements
// repeat on every pass and decide nothing, so the journal neither keeps nor shows them; it
// hands them to the sinks that are Meters.
type Measurement struct {
	Measure Measure
	// Controller, Method, NodePool, Policy and Decision qualify the figure where it has them.
	Controller, Method, NodePool, Policy, Decision string
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
