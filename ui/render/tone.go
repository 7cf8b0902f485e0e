package render

// Tone is what a cell's color means; the console maps each tone onto the current skin, so that
// a skin swap never rebuilds a table.
type Tone uint16

// Tones. ToneZone must stay last: ToneZone+i is the i-th availability zone of the skin's palette.
const (
	// ToneInherit is a cell that takes its row's tone.
	ToneInherit Tone = iota
	// ToneNormal is an ordinary row.
	ToneNormal
	// ToneAdded is something new or starting (a launching node, a NodeClaim not yet ready).
	ToneAdded
	// ToneModified is something changed by hand (a cordoned node).
	ToneModified
	// TonePending is a pending pod.
	TonePending
	// ToneError is a failure.
	ToneError
	// ToneKill is something going away (disrupting, terminating).
	ToneKill
	// ToneCompleted is something finished or of little interest.
	ToneCompleted
	// ToneHighlight is a group header or subtotal row.
	ToneHighlight
	// ToneSpot and ToneOnDemand are capacity types.
	ToneSpot
	ToneOnDemand
	// Disruption methods, and a blocked disruption.
	ToneEmptiness
	ToneDrift
	ToneConsolidation
	ToneExpiration
	ToneBlocked
	// Interruption severity.
	ToneNotice
	ToneWarning
	ToneCritical
	// ToneCost colors a price by the skin's cost thresholds; the row's Nums holds the $/h.
	ToneCost
	// Text tones: a field name, the colon after it and its value (the skin's YAML colors), and
	// a heading.
	ToneKey
	ToneColon
	ToneValue
	ToneHeading
	// ToneZone is the first availability zone.
	ToneZone
)

// Zone is the tone of the i-th zone (in the order of the sorted zone names).
func Zone(i int) Tone { return ToneZone + Tone(i) }
