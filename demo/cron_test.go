package demo

import (
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

// scaledObject reads the demo's ScaledObject with its cron trigger's metadata changed.
func scaledObject(t *testing.T, replace ...string) *manifest.ScaledObject {
	t.Helper()
	data, err := manifestFiles.ReadFile("manifests/13-keda-cron.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Split(string(data), "\n---\n")[1]
	doc = strings.NewReplacer(replace...).Replace(doc)
	var so manifest.ScaledObject
	if err := yaml.UnmarshalStrict([]byte(doc), &so); err != nil {
		t.Fatal(err)
	}
	return &so
}

// TestCronScaler plays the seed's schedule (start at :00, :15, :30, :45; end 5 minutes later;
// London time; a 300 s cooldown) through one quarter hour, as KEDA's cron scaler would.
func TestCronScaler(t *testing.T) {
	c, err := newCronScaler(scaledObject(t))
	if err != nil {
		t.Fatal(err)
	}
	london, _ := time.LoadLocation("Europe/London")
	at := func(hhmmss string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04:05", "2026-12-04 "+hhmmss, london)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, step := range []struct {
		at   string
		want int32
		why  string
	}{
		{"10:14:30", 0, "outside its schedule (next start 10:15, Europe/London) past its 5m0s cooldown"},
		{"10:15:00", 1, `inside its schedule (start "00,15,30,45 * * * *", end "05,20,35,50 * * * *", Europe/London) until 10:20`},
		{"10:19:59", 1, "until 10:20"},
		{"10:20:00", 1, "cooling down until 10:24:59"},
		{"10:24:30", 1, "cooling down until 10:24:59"},
		{"10:25:00", 0, "outside its schedule (next start 10:30"},
		{"10:30:00", 1, "until 10:35"},
	} {
		got, why := c.want(at(step.at))
		if got != step.want || !strings.Contains(why, step.why) {
			t.Errorf("at %s: %d replicas (%s), want %d (%s)", step.at, got, why, step.want, step.why)
		}
	}
}

func TestCronScalerRefusesWhatItCannotPlay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replace []string
		want    string
	}{
		{"another trigger", []string{"type: cron", "type: prometheus"}, `the demo plays cron triggers only (KEDA does not run here), got "prometheus"`},
		{"an unknown zone", []string{"Europe/London", "Europe/Atlantis"}, `timezone "Europe/Atlantis": an IANA time zone`},
		{"a bad start", []string{`"00,15,30,45 * * * *"`, `"61 * * * *"`}, `start "61 * * * *"`},
		{"no replicas", []string{`desiredReplicas: "1"`, `desiredReplicas: "none"`}, `desiredReplicas "none": a whole number of at least 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newCronScaler(scaledObject(t, tc.replace...))
			if err == nil || !strings.Contains(err.Error(), "ScaledObject default/php-apache-cron-scaled: "+tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestNarrateHPA: a change of an HPA's desired replicas is journaled once, with the CPU it
// scaled on; the first sight of an HPA and an unchanged one are not.
func TestNarrateHPA(t *testing.T) {
	e := &Environment{App: &app.App{Journal: journal.New(10)}}
	seen := map[string]int32{}
	hpa := func(desired, cpu int32) *autoscalingv2.HorizontalPodAutoscaler {
		target := int32(20)
		return &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{DesiredReplicas: desired, CurrentMetrics: []autoscalingv2.MetricStatus{{
				Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: &cpu}}}}},
		}
	}
	for _, h := range []*autoscalingv2.HorizontalPodAutoscaler{hpa(2, 30), hpa(2, 35), hpa(5, 94), hpa(5, 40)} {
		e.narrateHPA(h, seen)
	}
	entries := e.App.Journal.Entries(0)
	want := "HorizontalPodAutoscaler default/web scales Deployment web from 2 to 5 replicas: cpu at 94% of requests, target 20%"
	if len(entries) != 1 || entries[0].Kind != journal.KindWorkload || entries[0].Message != want {
		t.Errorf("journal %+v, want one Workload entry %q", entries, want)
	}
}
