package emulator

import (
	"time"
)

type describeSpotPriceHistoryResponse struct {
	ec2Response
	NextToken string         `xml:"nextToken"`
	Prices    []xmlSpotPrice `xml:"spotPriceHistorySet>item"`
}

type xmlSpotPrice struct {
	AvailabilityZone   string `xml:"availabilityZone"`
	AvailabilityZoneID string `xml:"availabilityZoneId"`
	InstanceType       string `xml:"instanceType"`
	ProductDescription string `xml:"productDescription"`
	SpotPrice          string `xml:"spotPrice"`
	Timestamp          string `xml:"timestamp"`
}

// linuxProductDescription is the only product with spot prices in the emulator.
const linuxProductDescription = "Linux/UNIX"

// maxHistorySteps bounds the records returned per type and zone for a window in the past.
const maxHistorySteps = 24

func (e *Emulator) describeSpotPriceHistory(q query) (any, error) {
	filters := parseFilters(q)
	recordField := func(r xmlSpotPrice) fieldFunc {
		return func(name string) ([]string, bool) {
			switch name {
			case "instance-type":
				return one(r.InstanceType), true
			case "availability-zone":
				return one(r.AvailabilityZone), true
			case "product-description":
				return one(r.ProductDescription), true
			case "spot-price":
				return one(r.SpotPrice), true
			case "timestamp":
				return one(r.Timestamp), true
			}
			return nil, false
		}
	}
	if err := checkFilters(filters, recordField(xmlSpotPrice{})); err != nil {
		return nil, err
	}
	// EC2 documents at most 1000 but takes more (Karpenter asks for 2000 a page); 10000 is the
	// emulator's own bound.
	size, err := maxResults(q, 5, 10000, 1000)
	if err != nil {
		return nil, err
	}
	now := e.now()
	start, end := now, now
	if s := q.str("StartTime"); s != "" {
		t, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return nil, errInvalidParameterValue("Value (" + s + ") for parameter startTime is invalid.")
		}
		start = t
	}
	if s := q.str("EndTime"); s != "" {
		t, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return nil, errInvalidParameterValue("Value (" + s + ") for parameter endTime is invalid.")
		}
		end = t
	}
	if end.After(now) {
		end = now
	}
	if start.After(end) {
		start = end
	}
	if products := q.list("ProductDescription"); len(products) > 0 &&
		!contains(products, linuxProductDescription) && !contains(products, linuxProductDescription+" (Amazon VPC)") {
		return &describeSpotPriceHistoryResponse{}, nil
	}
	types := q.list("InstanceType")
	zoneParam := q.str("AvailabilityZone")
	kEnd, kStart := e.prices.step(end), e.prices.step(start)
	kStart = max(kStart, kEnd-maxHistorySteps+1)

	var records []xmlSpotPrice
	for k := kEnd; k >= kStart; k-- {
		ts := ec2Time(e.prices.stepStart(k))
		for _, t := range e.world.types {
			if len(types) > 0 && !contains(types, t.Name) {
				continue
			}
			for _, zn := range t.Zones {
				if zoneParam != "" && zn != zoneParam {
					continue
				}
				z, _ := e.world.zoneByName(zn)
				r := xmlSpotPrice{
					AvailabilityZone: zn, AvailabilityZoneID: z.ID, InstanceType: t.Name,
					ProductDescription: linuxProductDescription, Timestamp: ts,
					SpotPrice: formatFloat(e.prices.price(t, z, k), 6),
				}
				if matches(filters, recordField(r)) {
					records = append(records, r)
				}
			}
		}
	}
	from, to, next, perr := ec2Page(q, len(records), size)
	if perr != nil {
		return nil, perr
	}
	return &describeSpotPriceHistoryResponse{Prices: records[from:to], NextToken: next}, nil
}
