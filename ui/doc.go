// Package ui is nodepilot's console: a k9s-style terminal UI (tview over tcell) over the live
// autoscaler. It reads the world through the Backend it declares, builds immutable view models
// off the UI goroutine (package model) and draws them through virtual tables, with one render
// loop that coalesces redraws. Keys are data: each view's key registry gives the hint line, the
// help screen and what read-only mode removes. Colors come from a skin.Skin, swapped live.
package ui
