package emulator

import (
	"container/heap"
	"net/netip"
	"sort"
	"time"
)

// Instance states, as EC2 names them.
const (
	StatePending      = "pending"
	StateRunning      = "running"
	StateShuttingDown = "shutting-down"
	StateTerminated   = "terminated"
	StateStopping     = "stopping"
	StateStopped      = "stopped"
)

func stateCode(state string) int {
	switch state {
	case StatePending:
		return 0
	case StateRunning:
		return 16
	case StateShuttingDown:
		return 32
	case StateTerminated:
		return 48
	case StateStopping:
		return 64
	case StateStopped:
		return 80
	}
	return -1
}

// instance is one EC2 instance and the times at which it changes state.
type instance struct {
	ID, Type, Zone, ZoneID, SubnetID, VpcID, ImageID, Arch string
	// CapacityType is spot or on-demand.
	CapacityType     string
	State            string
	LaunchTime       time.Time
	PrivateIP        netip.Addr
	PrivateDNS       string
	Tags             map[string]string
	Groups           []*securityGroup
	TemplateID       string
	Template         templateData
	ProfileArn       string
	ProfileID        string
	ReservationID    string
	FleetID          string
	ClientToken      string
	SpotRequestID    string
	ENIID, VolumeID  string
	StateReasonCode  string
	StateReasonText  string
	TransitionReason string
	VolumeTags       map[string]string
	RequesterID      string
	subnet           *subnet
	runningAt        time.Time // when pending ends
	interruptAt      time.Time // when an interruption warning's two minutes end; zero if none
	interruptReason  string    // the state reason code of that termination
	// impaired holds, per status check (instance, system), since when it fails.
	impaired          map[string]time.Time
	settleAt          time.Time // when shutting-down or stopping ends
	goneAt            time.Time // when a terminated instance disappears
	addressesReturned bool
}

// advance applies every state change due by now, in time order, publishing the state-change
// events as EventBridge would. It pops only the schedule's due entries, so its work is the
// number of changes, not of instances. The caller holds e.mu.
func (e *Emulator) advance() {
	now := e.now()
	for {
		c, ok := e.nextTransition()
		if !ok || c.at.After(now) {
			return
		}
		heap.Pop(&e.schedule)
		e.transition(c.inst, c.at)
		if e.instances[c.inst.ID] == c.inst {
			e.schedule.add(c.inst)
		}
	}
}

// nextTransition is the schedule's earliest entry that is still an instance's next change,
// dropping the stale ones above it (an entry goes stale when its instance is rescheduled).
func (e *Emulator) nextTransition() (change, bool) {
	for len(e.schedule) > 0 {
		c := e.schedule[0]
		e.visits++
		if at, ok := c.inst.nextChange(); ok && at.Equal(c.at) && e.instances[c.inst.ID] == c.inst {
			return c, true
		}
		heap.Pop(&e.schedule)
	}
	return change{}, false
}

// change is one scheduled state change.
type change struct {
	at   time.Time
	inst *instance
}

// changeHeap orders the scheduled changes by time, then instance id, as EC2 would apply them.
type changeHeap []change

func (h changeHeap) Len() int { return len(h) }
func (h changeHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].inst.ID < h[j].inst.ID
}
func (h changeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *changeHeap) Push(x any)   { *h = append(*h, x.(change)) }
func (h *changeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// add schedules inst's next change, if it has one. An earlier entry for inst stays in the
// heap and is dropped when it surfaces, which is cheaper than finding it.
func (h *changeHeap) add(inst *instance) {
	if at, ok := inst.nextChange(); ok {
		heap.Push(h, change{at: at, inst: inst})
	}
}

// reschedule records that inst's next change moved and wakes the scheduler for it.
func (e *Emulator) reschedule(inst *instance) {
	e.schedule.add(inst)
	e.nudge()
}

func (inst *instance) nextChange() (time.Time, bool) {
	switch inst.State {
	case StatePending:
		if !inst.interruptAt.IsZero() && inst.interruptAt.Before(inst.runningAt) {
			return inst.interruptAt, true
		}
		return inst.runningAt, true
	case StateRunning:
		return inst.interruptAt, !inst.interruptAt.IsZero()
	case StateShuttingDown, StateStopping:
		return inst.settleAt, true
	case StateTerminated:
		return inst.goneAt, true
	}
	return time.Time{}, false
}

// transition applies inst's next state change, due at at.
func (e *Emulator) transition(inst *instance, at time.Time) {
	switch inst.State {
	case StatePending, StateRunning:
		if !inst.interruptAt.IsZero() && !inst.interruptAt.After(at) {
			inst.interruptAt = time.Time{}
			e.beginShutdown(inst, at, inst.interruptReason)
			return
		}
		inst.State = StateRunning
	case StateShuttingDown:
		inst.State = StateTerminated
		inst.goneAt = at.Add(e.cfg.TerminatedRetention)
		e.releaseAddress(inst)
		e.publishStateChange(inst, at)
	case StateStopping:
		inst.State = StateStopped
		e.publishStateChange(inst, at)
	case StateTerminated:
		delete(e.instances, inst.ID)
	}
}

// beginShutdown moves inst to shutting-down at at, with a state reason.
func (e *Emulator) beginShutdown(inst *instance, at time.Time, reason string) {
	inst.State = StateShuttingDown
	inst.settleAt = at.Add(e.cfg.ShutdownDelay)
	inst.interruptAt = time.Time{}
	inst.StateReasonCode = reason
	inst.StateReasonText = reason + ": " + stateReasonText(reason)
	inst.TransitionReason = "User initiated (" + at.UTC().Format("2006-01-02 15:04:05 MST") + ")"
	if reason != reasonUserShutdown {
		inst.TransitionReason = "Service initiated (" + at.UTC().Format("2006-01-02 15:04:05 MST") + ")"
	}
	e.publishStateChange(inst, at)
	e.reschedule(inst)
}

// beginStop moves inst to stopping at at.
func (e *Emulator) beginStop(inst *instance, at time.Time) {
	inst.State = StateStopping
	inst.settleAt = at.Add(e.cfg.ShutdownDelay)
	inst.interruptAt = time.Time{}
	inst.StateReasonCode = reasonUserStop
	inst.StateReasonText = reasonUserStop + ": " + stateReasonText(reasonUserStop)
	e.publishStateChange(inst, at)
	e.reschedule(inst)
}

const (
	reasonUserShutdown = "Client.UserInitiatedShutdown"
	reasonUserStop     = "Client.UserInitiatedShutdown"
	reasonSpot         = "Server.SpotInstanceTermination"
	reasonScheduled    = "Server.ScheduledStop"
	reasonReservation  = "Server.InsufficientInstanceCapacity"
)

func stateReasonText(code string) string {
	switch code {
	case reasonSpot:
		return "Spot instance termination"
	case reasonScheduled:
		return "Stopped due to scheduled retirement"
	case reasonReservation:
		return "Capacity reservation interruption"
	}
	return "User initiated shutdown"
}

func (e *Emulator) releaseAddress(inst *instance) {
	if inst.subnet != nil && !inst.addressesReturned {
		inst.subnet.Free++
		inst.addressesReturned = true
	}
}

// nextEventTime is when the scheduler must next wake. The caller holds e.mu.
func (e *Emulator) nextEventTime() (time.Time, bool) {
	c, ok := e.nextTransition()
	return c.at, ok
}

// nudge wakes the scheduler to recompute its next wake-up.
func (e *Emulator) nudge() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// runScheduler applies state changes when they fall due, so that their events reach the
// queue on time even when nobody calls the API. It returns when the emulator shuts down.
func (e *Emulator) runScheduler() {
	for {
		e.mu.Lock()
		e.advance()
		next, ok := e.nextEventTime()
		e.mu.Unlock()
		var timerC <-chan time.Time
		stop := func() {}
		if ok {
			d := next.Sub(e.now())
			if d <= 0 {
				continue
			}
			t := e.clock.NewTimer(d)
			timerC, stop = t.C(), func() { t.Stop() }
		}
		select {
		case <-e.done:
			stop()
			return
		case <-e.wake:
		case <-timerC:
		}
		stop()
	}
}

// sortedInstances lists the instances keep accepts (all when keep is nil) by launch time, then
// id. It filters before it sorts, so that a lookup of a few among thousands sorts a few. The
// caller holds e.mu.
func (e *Emulator) sortedInstances(keep func(*instance) bool) []*instance {
	var out []*instance
	for _, inst := range e.instances {
		if keep == nil || keep(inst) {
			out = append(out, inst)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LaunchTime.Equal(out[j].LaunchTime) {
			return out[i].LaunchTime.Before(out[j].LaunchTime)
		}
		return out[i].ID < out[j].ID
	})
	return out
}
