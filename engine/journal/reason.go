package journal

// Reason is an entry's short code (what happened, or why the autoscaler would not act), and the
// reason of a Kubernetes event an entry carries. Producers write these constants and the metrics,
// the log, the event recorder and the console match on them, so that a reason is spelled in one
// place. Reasons that name another vocabulary convert from it: a disruption reason
// (karpv1.DisruptionReason), an interruption kind, an executor action kind, a status condition's
// reason.
type Reason string

// Reasons of the provisioning loop.
const (
	ReasonPodsPending               Reason = "PodsPending"
	ReasonNodeClaimsComputed        Reason = "NodeClaimsComputed"
	ReasonNodeClaimCreated          Reason = "NodeClaimCreated"
	ReasonNominated                 Reason = "Nominated"
	ReasonNoCompatibleInstanceTypes Reason = "NoCompatibleInstanceTypes"
	ReasonFailedScheduling          Reason = "FailedScheduling"
)

// Reasons of a NodeClaim's lifecycle: launch, registration, initialization, liveness, expiration,
// drift and garbage collection.
const (
	ReasonLaunched             Reason = "Launched"
	ReasonInsufficientCapacity Reason = "InsufficientCapacity"
	ReasonNodeClassNotReady    Reason = "NodeClassNotReady"
	ReasonRegistered           Reason = "Registered"
	ReasonInitialized          Reason = "Initialized"
	ReasonLivenessTimeout      Reason = "LivenessTimeout"
	ReasonExpired              Reason = "Expired"
	ReasonDrifted              Reason = "Drifted"
	ReasonOrphanInstance       Reason = "OrphanInstance"
	ReasonInstanceGone         Reason = "InstanceGone"
)

// Reasons of disruption that are not a decision's or a blocked node's (the disruption package
// declares those).
const (
	ReasonStaleTaintRemoved              Reason = "StaleTaintRemoved"
	ReasonInvalidDoNotDisruptAnnotation  Reason = "InvalidDoNotDisruptAnnotation"
	ReasonDoNotDisruptGracePeriodElapsed Reason = "DoNotDisruptGracePeriodElapsed"
)

// Reasons of termination.
const (
	ReasonTainted                       Reason = "Tainted"
	ReasonEvicted                       Reason = "Evicted"
	ReasonAwaitingVolumeDetachment      Reason = "AwaitingVolumeDetachment"
	ReasonVolumesUnknown                Reason = "VolumesUnknown"
	ReasonInstanceTerminating           Reason = "InstanceTerminating"
	ReasonTerminated                    Reason = "Terminated"
	ReasonWaitingOnNodeClaimTermination Reason = "WaitingOnNodeClaimTermination"
)

// Reasons of workload scalers (KindWorkload): which scaler changed the replicas.
const (
	ReasonHorizontalPodAutoscaler Reason = "HorizontalPodAutoscaler"
	ReasonScaledObject            Reason = "ScaledObject"
)

// ReasonError is a loop's or a step's failure.
const ReasonError Reason = "Error"

// Reasons of the Kubernetes events that entries carry (Event.Reason) and no entry has: Karpenter's
// words, which engine/events_test.go holds to Karpenter's own list. An event that says what its
// entry says (Evicted, Launched, FailedScheduling...) has the entry's reason.
const (
	ReasonDisrupted                      Reason = "Disrupted"
	ReasonFailedDraining                 Reason = "FailedDraining"
	ReasonTerminationGracePeriodExpiring Reason = "TerminationGracePeriodExpiring"
	ReasonTerminatingOnInterruption      Reason = "TerminatingOnInterruption"
	ReasonConsolidationCandidate         Reason = "ConsolidationCandidate"
	ReasonConsolidationApproved          Reason = "ConsolidationApproved"
	ReasonConsolidationRejected          Reason = "ConsolidationRejected"
	ReasonUnconsolidatable               Reason = "Unconsolidatable"
	ReasonDisruptionBlocked              Reason = "DisruptionBlocked"
	ReasonDoNotDisruptUntil              Reason = "DoNotDisruptUntil"
	ReasonDisruptionLaunching            Reason = "DisruptionLaunching"
	ReasonDisruptionWaitingReadiness     Reason = "DisruptionWaitingReadiness"
	ReasonDisruptionTerminating          Reason = "DisruptionTerminating"
	ReasonInsufficientCapacityError      Reason = "InsufficientCapacityError"
	ReasonUnregisteredTaintMissing       Reason = "UnregisteredTaintMissing"
	ReasonFailedConsistencyCheck         Reason = "FailedConsistencyCheck"
	// Interruptions, by kind (interruption.EventReason); a terminating instance is
	// ReasonInstanceTerminating.
	ReasonSpotInterrupted                        Reason = "SpotInterrupted"
	ReasonSpotRebalanceRecommendation            Reason = "SpotRebalanceRecommendation"
	ReasonInstanceUnhealthy                      Reason = "InstanceUnhealthy"
	ReasonCapacityReservationInstanceInterrupted Reason = "CapacityReservationInstanceInterrupted"
	ReasonInstanceStopping                       Reason = "InstanceStopping"
)
