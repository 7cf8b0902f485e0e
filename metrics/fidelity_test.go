package metrics

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// family is a metric family's name and variable label names, as a Desc describes it.
type family struct {
	name   string
	labels []string
}

var descPattern = regexp.MustCompile(`fqName: "([^"]+)".*variableLabels: \{([^}]*)\}`)

// ours lists the metric families nodepilot exports.
func ours(t *testing.T) []family {
	t.Helper()
	ch := make(chan *prometheus.Desc, 100)
	NewSink(prometheus.NewRegistry()).Describe(ch)
	var decorated collectors
	Decorate(&fakeCloud{}, &decorated)
	for _, c := range decorated {
		c.Describe(ch)
	}
	NewCollector(state.NewCluster(clock.RealClock{}), nil, clock.RealClock{}, karpv1.WellKnownLabels().UnsortedList()).Describe(ch)
	close(ch)
	var out []family
	for d := range ch {
		m := descPattern.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read %s", d)
		}
		f := family{name: m[1]}
		if m[2] != "" {
			f.labels = strings.Split(m[2], ",")
		}
		out = append(out, f)
	}
	return out
}

// TestMetricsAreKarpenters requires every karpenter_ family nodepilot exports to be one of
// Karpenter's, with the same label names, and every family of nodepilot's own to be named in the
// README, which says why Karpenter has no equivalent. It reports how many of Karpenter's
// families nodepilot exports.
func TestMetricsAreKarpenters(t *testing.T) {
	facts := upstream.Load(t)
	theirs := map[string]upstream.Metric{}
	for _, m := range facts.Metrics {
		theirs[m.Name] = m
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, f := range ours(t) {
		if !strings.HasPrefix(f.name, "karpenter_") {
			if !strings.Contains(string(readme), "`"+f.name+"`") {
				t.Errorf("%s is nodepilot's own: the README must name it and say why Karpenter has no equivalent", f.name)
			}
			continue
		}
		m, ok := theirs[f.name]
		if !ok {
			t.Errorf("%s is not one of Karpenter %s's metric families: rename it nodepilot_", f.name, facts.Version)
			continue
		}
		want, got := slices.Sorted(slices.Values(m.Labels)), slices.Sorted(slices.Values(f.labels))
		if m.DynamicLabels {
			// Karpenter adds the well-known labels it knows at run time; the fixed ones must be there.
			if !isSubset(want, got) {
				t.Errorf("%s has labels %v, Karpenter's include %v", f.name, got, want)
				continue
			}
		} else if !slices.Equal(want, got) {
			t.Errorf("%s has labels %v, Karpenter's %v", f.name, got, want)
			continue
		}
		matched++
	}
	t.Logf("metric families of Karpenter %s that nodepilot exports, with its labels: %d of %d", facts.Version, matched, len(facts.Metrics))
}

func isSubset(small, big []string) bool {
	for _, s := range small {
		if !slices.Contains(big, s) {
			return false
		}
	}
	return true
}
