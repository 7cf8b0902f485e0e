// Package skin loads console skins: k9s skin files unchanged (their k9s: section, YAML anchors
// and all), plus a nodepilot: section for what k9s does not draw (capacity types, zones,
// decisions, interruption severity, cost thresholds). A partial skin is laid over the default.
//
// # Using it
//
//	ref, err := skin.Resolve(flagSkin, os.Getenv("NODEPILOT_SKIN"), configPath) // "default", "light", "./mine.yaml"...
//	s, err := skin.Open(ref)                                                    // a *Skin to draw with
//	go skin.Watch(ctx, ref, func(s *skin.Skin, err error) { ... })             // live reload
//
// Resolve applies the selection order: the --skin flag, then NODEPILOT_SKIN, then the skin: key
// of ~/.config/nodepilot/config.yaml, then default. A bare name (no slash, no extension) is one
// of the skins shipped in the binary (Shipped, LoadShipped; the files are in skins/ at the
// repository root); anything else is a file (Load). Parse reads skin bytes; Default is the
// default skin, skins/default.yaml.
//
// # The file format
//
// A skin file is a k9s skin file. Its k9s: section sets the k9s part of Skin, key for key
// (k9s.frame.border.fgColor is Skin.Frame.Border.Fg); keys k9s defines for things nodepilot does
// not draw (views.charts, views.xray, views.logs, views.picker, views.help, prompt.border,
// body.logoColorMsg and the other logo states, info.cpuColor, info.memColor, info.k9sRevColor,
// emoji) are accepted and ignored, whatever they hold. Top-level keys other than k9s: and
// nodepilot: are ignored too: skins use them to hold anchors (foreground: &fg "#f8f8f2") that
// aliases (*fg) refer to. YAML merge keys (<<: *base) work. Any other unknown key, a key written
// twice, or a value that is not what its key takes, is an error naming the file, the key path and
// what is allowed:
//
//	mytheme.yaml: k9s.frame.border.fgColor: "bluish" is not a color (a name like dodgerblue, #rrggbb, or default)
//	mytheme.yaml: k9s.views.tabel: unknown key (did you mean table?)
//	mytheme.yaml: nodepilot.cheapBelow: must be a number of dollars per hour, got "cheap"
//
// Colors are written as k9s writes them: a tcell color name in any case (dodgerblue, aqua,
// papayawhip...), "#rrggbb" (quoted, since # starts a YAML comment), or default, the terminal's
// own color (tcell.ColorDefault). Names resolve to their RGB value, as k9s resolves them, so black
// is #000000 whatever the terminal's palette says. k9s.frame.menu.fgStyle is normal, bold or dim.
//
// The nodepilot: section (all keys optional):
//
//	spotColor, onDemandColor    capacity types                        Nodepilot.Spot, OnDemand
//	zoneColors                  a list; zones take them in order      Nodepilot.Zones
//	emptinessColor, driftColor, consolidationColor, expirationColor
//	                            disruption decisions by method        Nodepilot.Emptiness...
//	blockedColor                a disruption that was not allowed     Nodepilot.Blocked
//	noticeColor                 rebalance recommendations             Nodepilot.Notice
//	warningColor                scheduled changes                     Nodepilot.Warning
//	criticalColor               spot interruptions, stop, terminate   Nodepilot.Critical
//	cheapColor, moderateColor, dearColor
//	                            prices by threshold                   Nodepilot.Cheap...
//	cheapBelow, dearAbove       thresholds in US dollars per hour     Nodepilot.CheapBelow, DearAbove
//
// cheapBelow may not exceed dearAbove. skins/default.yaml documents the same in its header.
package skin
