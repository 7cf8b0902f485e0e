package ui

import "github.com/nodepilot/nodepilot/ui/model"

// plan is the data work a view needs for its next frame. The UI goroutine makes plans (they
// capture copies of what the view asked for); the builder runs them off the UI goroutine on a
// new World; each returns the change to apply, which the UI goroutine runs before drawing.
type plan func(*model.World) (apply func())
