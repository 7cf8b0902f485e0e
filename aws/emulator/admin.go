package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"
)

// adminPrefix is the path of the admin API on the emulator's listener.
const adminPrefix = "/_emulator"

// AdminRoutes lists the admin API, one "METHOD PATH: what it does" line each.
func AdminRoutes() []string {
	return []string{
		"GET    " + adminPrefix + "/                   summary: endpoint, region, zones, subnets, queue URL, these routes",
		"GET    " + adminPrefix + "/instances          instances (id, type, zone, capacity type, state, launch time, tags, DNS name)",
		"GET    " + adminPrefix + "/calls              API calls per operation; DELETE resets them",
		"GET    " + adminPrefix + "/faults             faults in force; DELETE clears them all",
		"POST   " + adminPrefix + "/faults/capacity    {\"instanceType\":\"m5.*\",\"zone\":\"us-east-1a\",\"capacityType\":\"spot\",\"code\":\"InsufficientInstanceCapacity\",\"count\":0}",
		"POST   " + adminPrefix + "/faults/throttle    {\"operation\":\"CreateFleet\",\"share\":0.5,\"next\":3}",
		"POST   " + adminPrefix + "/faults/fail        {\"operation\":\"DescribeInstances\",\"count\":2,\"code\":\"InternalError\"}",
		"POST   " + adminPrefix + "/faults/latency     {\"operation\":\"\",\"latency\":\"250ms\"}",
		"POST   " + adminPrefix + "/interruptions      {\"kind\":\"spot-interruption|rebalance-recommendation|scheduled-change|state-change|capacity-reservation-interruption\",\"instanceId\":\"i-...\",\"state\":\"stopped\"}",
		"POST   " + adminPrefix + "/impairments        {\"instanceId\":\"i-...\",\"check\":\"system|instance\"}   a status check fails from now on",
		"PUT    " + adminPrefix + "/subnets/{id}       {\"freeAddresses\":0}",
		"GET    " + adminPrefix + "/spot-price?instanceType=m5.large&zone=us-east-1a   current synthetic spot price",
	}
}

// adminHandler builds the admin API's routes (see AdminRoutes and the package documentation).
func (e *Emulator) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+adminPrefix+"/{$}", e.adminSummary)
	mux.HandleFunc("GET "+adminPrefix+"/instances", func(w http.ResponseWriter, r *http.Request) { adminJSON(w, http.StatusOK, e.Instances()) })
	mux.HandleFunc("GET "+adminPrefix+"/calls", func(w http.ResponseWriter, r *http.Request) { adminJSON(w, http.StatusOK, e.CallCounts()) })
	mux.HandleFunc("DELETE "+adminPrefix+"/calls", func(w http.ResponseWriter, r *http.Request) {
		e.ResetCallCounts()
		adminJSON(w, http.StatusOK, map[string]string{"status": "reset"})
	})
	mux.HandleFunc("GET "+adminPrefix+"/faults", func(w http.ResponseWriter, r *http.Request) { adminJSON(w, http.StatusOK, e.adminFaults()) })
	mux.HandleFunc("DELETE "+adminPrefix+"/faults", func(w http.ResponseWriter, r *http.Request) {
		e.ClearFaults()
		adminJSON(w, http.StatusOK, map[string]string{"status": "cleared"})
	})
	mux.HandleFunc("POST "+adminPrefix+"/faults/capacity", adminPost(e.InjectCapacityError))
	mux.HandleFunc("POST "+adminPrefix+"/faults/throttle", adminPost(e.InjectThrottle))
	mux.HandleFunc("POST "+adminPrefix+"/faults/fail", adminPost(e.InjectFailure))
	mux.HandleFunc("POST "+adminPrefix+"/faults/latency", adminPost(func(l adminLatency) error {
		d, err := time.ParseDuration(l.Latency)
		if err != nil {
			return fmt.Errorf("latency %q: %w", l.Latency, err)
		}
		return e.SetLatency(l.Operation, d)
	}))
	mux.HandleFunc("POST "+adminPrefix+"/interruptions", adminPost(e.Interrupt))
	mux.HandleFunc("POST "+adminPrefix+"/impairments", adminPost(func(i Impairment) error { return e.Impair(i.InstanceID, i.Check) }))
	mux.HandleFunc("PUT "+adminPrefix+"/subnets/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		adminPost(func(s adminSubnet) error {
			if s.FreeAddresses == nil {
				return fmt.Errorf("subnet %q: freeAddresses is required", id)
			}
			return e.SetFreeAddresses(id, *s.FreeAddresses)
		})(w, r)
	})
	mux.HandleFunc("GET "+adminPrefix+"/spot-price", func(w http.ResponseWriter, r *http.Request) {
		t, z := r.URL.Query().Get("instanceType"), r.URL.Query().Get("zone")
		p, ok := e.SpotPrice(t, z)
		if !ok {
			adminJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("instance type %q is not offered in zone %q", t, z)})
			return
		}
		adminJSON(w, http.StatusOK, map[string]any{"instanceType": t, "zone": z, "spotPrice": p, "source": "synthetic"})
	})
	return mux
}

type adminLatency struct {
	Operation string `json:"operation"`
	Latency   string `json:"latency"`
}

type adminSubnet struct {
	FreeAddresses *int `json:"freeAddresses"`
}

type adminFaultsView struct {
	Capacity []CapacityFault   `json:"capacity"`
	Throttle []Throttle        `json:"throttle"`
	Fail     []Failure         `json:"fail"`
	Latency  map[string]string `json:"latency"`
}

func (e *Emulator) adminFaults() adminFaultsView {
	f := e.Faults()
	v := adminFaultsView{Capacity: f.Capacity, Throttle: f.Throttle, Fail: f.Fail, Latency: map[string]string{}}
	for k, d := range f.Latency {
		v.Latency[k] = d.String()
	}
	return v
}

func (e *Emulator) adminSummary(w http.ResponseWriter, _ *http.Request) {
	var zones []string
	for _, z := range e.world.zones {
		zones = append(zones, z.Name+" ("+z.ID+")")
	}
	ops := operationNames()
	sort.Strings(ops)
	adminJSON(w, http.StatusOK, map[string]any{
		"endpoint": e.endpoint, "region": e.cfg.Region, "account": e.cfg.AccountID, "cluster": e.cfg.ClusterName,
		"zones": zones, "subnets": e.Subnets(), "queueUrl": e.QueueURL(), "operations": ops, "routes": AdminRoutes(),
		"note": "spot prices, AMIs and events are synthetic",
	})
}

// adminPost decodes the JSON body into T and applies it.
func adminPost[T any](apply func(T) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v T
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err == nil {
			err = json.Unmarshal(body, &v)
		}
		if err != nil {
			adminJSON(w, http.StatusBadRequest, map[string]string{"error": "decode request: " + err.Error()})
			return
		}
		if err := apply(v); err != nil {
			adminJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		adminJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}
}

func adminJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
