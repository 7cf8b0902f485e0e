// Package skin loads console skins: k9s skin files unchanged (their k9s: section, YAML anchors
// and all), plus a nodepilot: section for what k9s does not draw (capacity types, zones,
// decisions, interruption severity, cost thresholds). A partial skin is laid over the default.
package skin
