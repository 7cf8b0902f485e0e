package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // KEDA's cron triggers name IANA time zones; the demo must not depend on the host's

	"github.com/robfig/cron/v3"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

// cronScaler plays a KEDA ScaledObject with a cron trigger: KEDA's operator is not built for the
// demo (see the README), so the demo scales the target as KEDA's cron scaler would. Between a
// start and the end that follows, the target runs desiredReplicas (at most maxReplicaCount);
// outside, once cooldownPeriod has passed since it was last inside, minReplicaCount.
type cronScaler struct {
	name, namespace, deployment string
	min, max, desired           int32
	cooldown, polling           time.Duration
	start, end                  cron.Schedule
	startSpec, endSpec, zone    string
	loc                         *time.Location
	lastActive                  time.Time
}

// KEDA's defaults for the periods a ScaledObject leaves out.
const (
	kedaPollingInterval = 30 * time.Second
	kedaCooldownPeriod  = 300 * time.Second
)

// newCronScaler reads a ScaledObject whose one trigger is cron; any other is refused, naming it.
func newCronScaler(so *manifest.ScaledObject) (*cronScaler, error) {
	what := fmt.Sprintf("ScaledObject %s/%s", namespace(so.Namespace), so.Name)
	spec := so.Spec
	if spec.ScaleTargetRef == nil || spec.ScaleTargetRef.Kind != "" && spec.ScaleTargetRef.Kind != "Deployment" {
		return nil, fmt.Errorf("%s: the demo scales Deployments only", what)
	}
	if len(spec.Triggers) != 1 {
		return nil, fmt.Errorf("%s: the demo plays one cron trigger, got %d triggers", what, len(spec.Triggers))
	}
	var trigger struct {
		Type     string            `json:"type"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(spec.Triggers[0], &trigger); err != nil {
		return nil, fmt.Errorf("%s: trigger: %w", what, err)
	}
	if trigger.Type != "cron" {
		return nil, fmt.Errorf("%s: the demo plays cron triggers only (KEDA does not run here), got %q", what, trigger.Type)
	}
	md := trigger.Metadata
	c := &cronScaler{name: so.Name, namespace: namespace(so.Namespace), deployment: spec.ScaleTargetRef.Name,
		min: 0, max: 100, cooldown: kedaCooldownPeriod, polling: kedaPollingInterval,
		startSpec: md["start"], endSpec: md["end"], zone: md["timezone"]}
	var err error
	if c.loc, err = time.LoadLocation(c.zone); err != nil || c.zone == "" {
		return nil, fmt.Errorf("%s: timezone %q: an IANA time zone such as Europe/London is required", what, c.zone)
	}
	if c.start, err = cron.ParseStandard(c.startSpec); err != nil {
		return nil, fmt.Errorf("%s: start %q: %w", what, c.startSpec, err)
	}
	if c.end, err = cron.ParseStandard(c.endSpec); err != nil {
		return nil, fmt.Errorf("%s: end %q: %w", what, c.endSpec, err)
	}
	desired, err := strconv.ParseInt(md["desiredReplicas"], 10, 32)
	if err != nil || desired < 1 {
		return nil, fmt.Errorf("%s: desiredReplicas %q: a whole number of at least 1 is required", what, md["desiredReplicas"])
	}
	c.desired = int32(desired)
	if spec.MinReplicaCount != nil {
		c.min = *spec.MinReplicaCount
	}
	if spec.MaxReplicaCount != nil {
		c.max = *spec.MaxReplicaCount
	}
	if spec.CooldownPeriod != nil {
		c.cooldown = time.Duration(*spec.CooldownPeriod) * time.Second
	}
	if spec.PollingInterval != nil {
		c.polling = time.Duration(*spec.PollingInterval) * time.Second
	}
	return c, nil
}

// want is the replicas the target should run at t, and why. It remembers when it was last
// inside the schedule, for the cooldown.
func (c *cronScaler) want(t time.Time) (int32, string) {
	local := t.In(c.loc)
	// As KEDA's cron scaler (read in its pkg/scalers/cron_scaler.go): inactive when the next
	// start comes before the next end, else active.
	if next := c.end.Next(local); !next.After(c.start.Next(local)) {
		c.lastActive = t
		return min(max(c.desired, c.min), c.max), fmt.Sprintf("inside its schedule (start %q, end %q, %s) until %s",
			c.startSpec, c.endSpec, c.zone, next.Format("15:04"))
	}
	if !c.lastActive.IsZero() && t.Sub(c.lastActive) < c.cooldown {
		return min(max(c.desired, c.min), c.max), fmt.Sprintf("cooling down until %s", c.lastActive.Add(c.cooldown).In(c.loc).Format("15:04:05"))
	}
	return c.min, fmt.Sprintf("outside its schedule (next start %s, %s) past its %s cooldown", c.start.Next(local).Format("15:04"), c.zone, c.cooldown)
}

// runCron plays the cron scalers until ctx ends, each every polling interval (the shortest),
// journaling each change of replicas it makes.
func (e *Environment) runCron(ctx context.Context, scalers []*cronScaler) {
	if len(scalers) == 0 {
		return
	}
	every := scalers[0].polling
	for _, c := range scalers[1:] {
		every = min(every, c.polling)
	}
	clk := e.opts.LoadClock
	if clk == nil {
		clk = clock.RealClock{}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		for _, c := range scalers {
			if err := e.playCron(ctx, c, clk.Now()); err != nil && ctx.Err() == nil {
				e.opts.Logger.Warn("cron scaler", "scaledobject", c.namespace+"/"+c.name, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// playCron scales one cron scaler's Deployment to what it wants at now.
func (e *Environment) playCron(ctx context.Context, c *cronScaler, now time.Time) error {
	want, why := c.want(now)
	from, err := e.scale(ctx, c.namespace+"/"+c.deployment, func(int32) int32 { return want })
	if err != nil || from == want {
		return err
	}
	e.App.Journal.Record(journal.Entry{Time: time.Now(), Kind: journal.KindWorkload, Reason: journal.ReasonScaledObject,
		Message: fmt.Sprintf("ScaledObject %s/%s (KEDA's cron trigger, played by the demo) scales Deployment %s from %d to %d replicas: %s",
			c.namespace, c.name, c.deployment, from, want, why)})
	return nil
}
