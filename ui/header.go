package ui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// logo is drawn at the header's right when there is room.
const logo = "nodepilot"

// drawHeader draws the cluster and fleet facts and returns the lines used.
func (c *Console) drawHeader(screen tcell.Screen, x, y, w int) int {
	s := c.pal.s
	label := tcell.StyleDefault.Foreground(s.Info.Section).Background(s.Body.Bg)
	value := tcell.StyleDefault.Foreground(s.Info.Fg).Background(s.Body.Bg).Bold(true)
	field := func(name, v string, st tcell.Style) []draw.Span {
		return []draw.Span{draw.Text(name+": ", label), draw.Text(v, st), draw.Text("  ", label)}
	}
	i := c.info
	line1 := append(field("Context", orDash(i.Context), value), field("Cluster", orDash(i.Cluster), value)...)
	line1 = append(line1, field("K8s", orDash(i.KubernetesVersion), value)...)
	line1 = append(line1, field("Autoscaler", i.Mode(), c.modeStyle())...)
	if c.world != nil && !c.world.Snapshot.Synced {
		line1 = append(line1, draw.Text("syncing with the API server…", draw.Style(s.Frame.Status.Pending, s.Body.Bg)))
	}
	body := c.pal.body()
	draw.Line(screen, x, y, w, body, append([]draw.Span{draw.Text(" ", body)}, line1...))
	if used := draw.SpansWidth(line1) + 1; w-used > len(logo)+2 {
		draw.Put(screen, x+w-len(logo)-1, y, len(logo), logo, tcell.StyleDefault.Foreground(s.Body.Logo).Background(s.Body.Bg).Bold(true))
	}
	f := model.Fleet{}
	if c.world != nil {
		f = c.world.Fleet
	}
	pending := value
	if f.Pending > 0 {
		pending = draw.Style(s.Frame.Status.Pending, s.Body.Bg).Bold(true)
	}
	line2 := append(field("Nodes", nodesText(f), value), field("Pods", fmt.Sprint(f.Pods), value)...)
	line2 = append(line2, field("Pending", fmt.Sprint(f.Pending), pending)...)
	line2 = append(line2, field("Fleet", render.Dollars(f.PerHour)+"/h "+render.Monthly(f.PerHour)+"/month", draw.Style(c.pal.cost(f.PerHour), s.Body.Bg).Bold(true))...)
	line2 = append(line2, draw.Text("Prices: ", label))
	line2 = append(line2, c.pricesText(f)...)
	draw.Line(screen, x, y+1, w, body, append([]draw.Span{draw.Text(" ", body)}, line2...))
	if c.demo == nil {
		return 2
	}
	auto := "autoplay off (a)"
	if c.demo.Autoplay() {
		auto = "autoplay on (a)"
	}
	draw.Line(screen, x, y+2, w, body, append([]draw.Span{draw.Text(" ", body)}, append(field("Demo", c.story, value), draw.Text(auto, label))...))
	return 3
}

func nodesText(f model.Fleet) string {
	var parts []string
	for _, ct := range []string{"spot", "on-demand"} {
		if n := f.ByCapacityType[ct]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, ct))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprint(f.Nodes)
	}
	return fmt.Sprintf("%d (%s)", f.Nodes, strings.Join(parts, ", "))
}

// pricesText says where prices come from and how old they are, marking synthetic ones.
func (c *Console) pricesText(f model.Fleet) []draw.Span {
	s := c.pal.s
	value := draw.Style(s.Info.Fg, s.Body.Bg)
	if c.info.NoCloud != "" {
		return []draw.Span{draw.Text("unknown: AWS not configured ("+c.info.NoCloud+")", draw.Style(s.Frame.Status.Pending, s.Body.Bg))}
	}
	if len(f.Sources) == 0 {
		return []draw.Span{draw.Text("-", value)}
	}
	var out []draw.Span
	for i, src := range f.Sources {
		if i > 0 {
			out = append(out, draw.Text(", ", value))
		}
		st := value
		if src == "synthetic" {
			st = draw.Style(s.Frame.Status.Pending, s.Body.Bg).Bold(true)
		}
		out = append(out, draw.Text(src, st))
	}
	if !f.AsOf.IsZero() && c.world != nil {
		out = append(out, draw.Text(" ("+render.Age(c.world.Now, f.AsOf)+" old)", value))
	}
	if f.Unpriced > 0 {
		out = append(out, draw.Text(fmt.Sprintf(", %d unpriced", f.Unpriced), draw.Style(s.Frame.Status.Error, s.Body.Bg)))
	}
	return out
}

func (c *Console) modeStyle() tcell.Style {
	st, bg := c.pal.s.Frame.Status, c.pal.s.Body.Bg
	switch i := c.info; {
	case i.ReadOnly:
		return draw.Style(st.Error, bg).Bold(true)
	case i.Paused:
		return draw.Style(st.Pending, bg).Bold(true)
	case i.DryRun:
		return draw.Style(st.Modify, bg).Bold(true)
	}
	return draw.Style(st.New, bg).Bold(true)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
