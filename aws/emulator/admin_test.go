package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func adminDo(t *testing.T, e *Emulator, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), method, e.AdminEndpoint()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAdminAPI(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	e := w.e
	steps := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/", "", 200, `"queueUrl"`},
		{"POST", "/faults/capacity", `{"instanceType":"m5.large","capacityType":"spot"}`, 200, `"ok"`},
		{"POST", "/faults/capacity", `{"zone":"mars-1a"}`, 400, `not one of the emulator's zones`},
		{"POST", "/faults/throttle", `{"operation":"DescribeImages","next":1}`, 200, `"ok"`},
		{"POST", "/faults/fail", `{"operation":"DescribeSubnets","count":1,"code":"InternalError"}`, 200, `"ok"`},
		{"POST", "/faults/latency", `{"operation":"GetRole","latency":"1ms"}`, 200, `"ok"`},
		{"POST", "/faults/latency", `{"latency":"soon"}`, 400, `"error"`},
		{"POST", "/faults/fail", `not json`, 400, `decode request`},
		{"GET", "/faults", "", 200, `"GetRole": "1ms"`},
		{"GET", "/spot-price?instanceType=m5.large&zone=us-east-1a", "", 200, `"synthetic"`},
		{"GET", "/spot-price?instanceType=m5.large&zone=mars", "", 404, `"error"`},
		{"PUT", "/subnets/" + w.subnets[0].ID, `{"freeAddresses":7}`, 200, `"ok"`},
		{"PUT", "/subnets/subnet-nope", `{"freeAddresses":7}`, 400, `does not exist`},
		{"DELETE", "/calls", "", 200, `reset`},
		{"GET", "/nowhere", "", 404, ``},
	}
	for _, s := range steps {
		status, body := adminDo(t, e, s.method, s.path, s.body)
		if status != s.status || !strings.Contains(body, s.contains) {
			t.Errorf("%s %s: %d %s, want %d containing %s", s.method, s.path, status, body, s.status, s.contains)
		}
	}
	if w.e.Subnets()[0].FreeAddresses != 7 {
		t.Errorf("free addresses not set")
	}
	// The capacity fault acts on CreateFleet, the fail and throttle faults on their operations.
	out, err := w.c.ec2.CreateFleet(ctx(t), w.fleet(types.DefaultTargetCapacityTypeSpot, w.ltAMD, "", w.overrides("m5.large")))
	if err != nil || len(out.Instances) != 0 || len(out.Errors) != 3 {
		t.Errorf("fleet under the admin fault: %v %+v", err, out)
	}
	if _, err := w.c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{}); apiCode(err) != "InternalError" {
		t.Errorf("DescribeSubnets: %v", err)
	}
	if _, err := w.c.ec2.DescribeImages(ctx(t), &ec2.DescribeImagesInput{}); apiCode(err) != "RequestLimitExceeded" {
		t.Errorf("DescribeImages: %v", err)
	}
	if status, body := adminDo(t, e, "GET", "/calls", ""); status != 200 || !strings.Contains(body, `"CreateFleet": 1`) {
		t.Errorf("calls: %d %s", status, body)
	}
	if status, _ := adminDo(t, e, "DELETE", "/faults", ""); status != 200 || len(e.Faults().Capacity) != 0 {
		t.Errorf("clear faults: %d %+v", status, e.Faults())
	}
	// Interruptions and the instance list.
	id := w.launch(t, types.DefaultTargetCapacityTypeSpot, "m5.large")
	body, _ := json.Marshal(Interruption{Kind: SpotInterruption, InstanceID: id})
	if status, b := adminDo(t, e, "POST", "/interruptions", string(body)); status != 200 {
		t.Errorf("interrupt: %d %s", status, b)
	}
	if status, b := adminDo(t, e, "POST", "/interruptions", `{"kind":"spot-interruption","instanceId":"i-0123456789abcdef0"}`); status != 400 || !strings.Contains(b, "does not exist") {
		t.Errorf("interrupt unknown: %d %s", status, b)
	}
	if status, b := adminDo(t, e, "POST", "/impairments", `{"instanceId":"`+id+`","check":"system"}`); status != 200 {
		t.Errorf("impair: %d %s", status, b)
	}
	if status, b := adminDo(t, e, "POST", "/impairments", `{"instanceId":"`+id+`","check":"disk"}`); status != 400 || !strings.Contains(b, "status check") {
		t.Errorf("impair with an unknown check: %d %s", status, b)
	}
	status, b := adminDo(t, e, "GET", "/instances", "")
	var list []Instance
	if err := json.NewDecoder(bytes.NewReader([]byte(b))).Decode(&list); status != 200 || err != nil || len(list) != 1 || list[0].ID != id {
		t.Errorf("instances: %d %v %s", status, err, b)
	}
	if got := drain(t, e, w.c); len(got) != 1 || got[0].DetailType != "EC2 Spot Instance Interruption Warning" {
		t.Errorf("queue after the admin interruption: %v", kinds(got))
	}
}
