package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"
)

// fuzzEmulator is one emulator per fuzz target; requests carry a cancelled context, so that
// long polls and latency never wait.
func fuzzEmulator(f *testing.F) *Emulator {
	f.Helper()
	e, err := Start(context.Background(), Config{Clock: clocktesting.NewFakeClock(testStart)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = e.Close() })
	return e
}

func cancelled() context.Context {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	return c
}

// FuzzQueryRequests sends arbitrary form bodies to the EC2 and IAM query protocols: the
// emulator never panics and always answers a well-formed XML document.
func FuzzQueryRequests(f *testing.F) {
	e := fuzzEmulator(f)
	for _, seed := range []string{
		"Action=CreateFleet&ClientToken=tok&LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName=lt&LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version=%24Latest&LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone=us-east-1a&LaunchTemplateConfigs.1.Overrides.1.InstanceType=m5.large&LaunchTemplateConfigs.1.Overrides.1.Priority=1.5&SpotOptions.AllocationStrategy=price-capacity-optimized&TagSpecification.1.ResourceType=instance&TagSpecification.1.Tag.1.Key=a&TagSpecification.1.Tag.1.Value=b&TargetCapacitySpecification.DefaultTargetCapacityType=spot&TargetCapacitySpecification.TotalTargetCapacity=1&Type=instant&Version=2016-11-15",
		"Action=CreateLaunchTemplate&LaunchTemplateData.BlockDeviceMapping.1.DeviceName=%2Fdev%2Fxvda&LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeSize=20&LaunchTemplateData.ImageId=ami-1&LaunchTemplateData.SecurityGroupId.1=sg-1&LaunchTemplateName=lt&Version=2016-11-15",
		"Action=DescribeInstanceTypes&Filter.1.Name=processor-info.supported-architecture&Filter.1.Value.1=x86_64&Filter.1.Value.2=arm64&InstanceType.1=m5.large&MaxResults=100&Version=2016-11-15",
		"Action=DescribeInstances&InstanceId.1=i-1&InstanceId.2=i-2&Version=2016-11-15",
		"Action=DescribeSpotPriceHistory&StartTime=2026-08-01T12%3A00%3A00Z&ProductDescription.1=Linux%2FUNIX&Version=2016-11-15",
		"Action=TerminateInstances&InstanceId.1=i-0123456789abcdef0&Version=2016-11-15",
		"Action=CreateTags&ResourceId.1=subnet-1&Tag.1.Key=k&Tag.1.Value=v&Version=2016-11-15",
		"Action=DescribeSubnets&Filter.1.Name=tag%3Akarpenter.sh%2Fdiscovery&Filter.1.Value.1=*&NextToken=abc&Version=2016-11-15",
		"Action=TagInstanceProfile&InstanceProfileName=p&Tags.member.1.Key=a&Tags.member.1.Value=b&Version=2010-05-08",
		"Action=CreateInstanceProfile&InstanceProfileName=p&Path=%2F&Version=2010-05-08",
		"Action=DescribeImages&Owner.1=self&Filter.99999999999999999999.Name=x&Version=2016-11-15",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequestWithContext(cancelled(), http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != 200 && (w.Code < 400 || w.Code > 599) {
			t.Fatalf("status %d", w.Code)
		}
		if !startsWithElement(w.Body.Bytes()) {
			t.Fatalf("answer is not XML:\n%s", w.Body.String())
		}
	})
}

// startsWithElement reports whether b is an XML document whose first element opens. (Decoding
// whole answers would spend the fuzzing time on the largest ones.)
func startsWithElement(b []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if _, ok := tok.(xml.StartElement); ok {
			return true
		}
	}
}

// FuzzJSONRequests sends arbitrary bodies to the SQS, SSM and Pricing operations.
func FuzzJSONRequests(f *testing.F) {
	e := fuzzEmulator(f)
	targets := []string{"AmazonSQS.ReceiveMessage", "AmazonSQS.SendMessage", "AmazonSQS.DeleteMessage", "AmazonSQS.CreateQueue",
		"AmazonSQS.GetQueueUrl", "AmazonSSM.GetParameter", "AWSPriceListService.GetProducts", "AmazonSQS.Nope"}
	for i, seed := range []string{
		`{"MaxNumberOfMessages":10,"QueueUrl":"` + e.QueueURL() + `","WaitTimeSeconds":20}`,
		`{"QueueUrl":"` + e.QueueURL() + `","MessageBody":"hello","DelaySeconds":3}`,
		`{"QueueUrl":"` + e.QueueURL() + `","ReceiptHandle":"bnAxL215LWNsdXN0ZXIvYS8x"}`,
		`{"QueueName":"q","Attributes":{"VisibilityTimeout":"30"},"tags":{"a":"b"}}`,
		`{"QueueName":"my-cluster"}`,
		`{"Name":"/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id"}`,
		`{"ServiceCode":"AmazonEC2","Filters":[{"Type":"TERM_MATCH","Field":"instanceType","Value":"m5.large"}],"MaxResults":3,"NextToken":"x"}`,
		`{}`,
	} {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, target uint8, body string) {
		req := httptest.NewRequestWithContext(cancelled(), http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", targets[int(target)%len(targets)])
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != 200 && (w.Code < 400 || w.Code > 599) {
			t.Fatalf("status %d", w.Code)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("answer is not JSON: %s", w.Body.String())
		}
	})
}

// FuzzGlobMatch: no panic, every string matches itself escaped and matches "*".
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"m5.*", "m5.large"}, {"a?c", "abc"}, {`\*`, "*"}, {"**x", "yx"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		globMatch(pattern, s)
		escaped := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`).Replace(s)
		if !globMatch(escaped, s) {
			t.Errorf("%q does not match its escaped self %q", s, escaped)
		}
		if !globMatch("*", s) {
			t.Errorf("* does not match %q", s)
		}
	})
}

// FuzzReceiptHandle: parsing never panics, and made handles parse back.
func FuzzReceiptHandle(f *testing.F) {
	f.Add("q", "m", 1, "bnAxL3EvbS8x")
	f.Fuzz(func(t *testing.T, queueName, messageID string, seq int, raw string) {
		parseReceiptHandle(raw)
		if strings.Contains(queueName, "/") || strings.Contains(messageID, "/") {
			return
		}
		q, m, n, ok := parseReceiptHandle(receiptHandle(queueName, messageID, seq))
		if !ok || q != queueName || m != messageID || n != seq {
			t.Errorf("round trip of %q %q %d gave %q %q %d %v", queueName, messageID, seq, q, m, n, ok)
		}
	})
}
