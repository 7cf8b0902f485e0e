package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// price is a price in US dollars per hour and where it came from.
type price struct {
	usd    float64
	source cloudprovider.PriceSource
}

// fetchOnDemandPrices reads the Linux, shared-tenancy on-demand prices of region from the AWS
// Price List API (GetProducts, paginated), plus the bare-metal types, which the API lists as
// dedicated. It fails when the API fails or lists nothing, so that the caller keeps its prices.
func fetchOnDemandPrices(ctx context.Context, api PricingAPI, region string) (map[string]float64, error) {
	prices := map[string]float64{}
	for _, q := range []struct{ tenancy, family string }{
		{"Shared", "Compute Instance"},
		{"Dedicated", "Compute Instance (bare metal)"},
	} {
		input := &pricing.GetProductsInput{
			ServiceCode: sdkaws.String("AmazonEC2"),
			Filters: []pricingtypes.Filter{
				termMatch("regionCode", region),
				termMatch("serviceCode", "AmazonEC2"),
				termMatch("operatingSystem", "Linux"),
				termMatch("preInstalledSw", "NA"),
				termMatch("capacitystatus", "Used"),
				termMatch("marketoption", "OnDemand"),
				termMatch("tenancy", q.tenancy),
				termMatch("productFamily", q.family),
			},
			MaxResults: sdkaws.Int32(100),
		}
		pages := pricing.NewGetProductsPaginator(api, input)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("pricing GetProducts for %s (%s): %w", region, q.family, err)
			}
			for name, usd := range parsePriceList(page.PriceList) {
				prices[name] = usd
			}
		}
	}
	if len(prices) == 0 {
		return nil, fmt.Errorf("pricing GetProducts for %s: no on-demand prices listed", region)
	}
	return prices, nil
}

func termMatch(field, value string) pricingtypes.Filter {
	return pricingtypes.Filter{Field: sdkaws.String(field), Type: pricingtypes.FilterTypeTermMatch, Value: sdkaws.String(value)}
}

// priceListItem is the part of a Price List API product document that holds the on-demand
// hourly price of an instance type.
type priceListItem struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				Unit         string            `json:"unit"`
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// parsePriceList reads instance type prices (USD per hour) from Price List API documents,
// skipping documents it cannot read and prices of zero.
func parsePriceList(docs []string) map[string]float64 {
	out := map[string]float64{}
	for _, doc := range docs {
		var item priceListItem
		if err := json.Unmarshal([]byte(doc), &item); err != nil || item.Product.Attributes.InstanceType == "" {
			continue
		}
		for _, term := range item.Terms.OnDemand {
			for _, dim := range term.PriceDimensions {
				usd, err := strconv.ParseFloat(dim.PricePerUnit["USD"], 64)
				if err != nil || usd <= 0 {
					continue
				}
				out[item.Product.Attributes.InstanceType] = usd
			}
		}
	}
	return out
}

// spotQuote is the latest spot price of a type in a zone.
type spotQuote struct {
	usd float64
	at  time.Time
}

// fetchSpotPrices reads the current Linux spot price of every type in every zone from
// DescribeSpotPriceHistory (paginated), keeping the latest quote per type and zone. It fails
// when EC2 fails or lists nothing.
func fetchSpotPrices(ctx context.Context, api EC2API, now time.Time) (map[string]map[string]spotQuote, error) {
	input := &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"},
		// A start time of now asks for the price in effect now, one record per type and zone.
		StartTime:  sdkaws.Time(now),
		MaxResults: sdkaws.Int32(1000),
	}
	out := map[string]map[string]spotQuote{}
	pages := ec2.NewDescribeSpotPriceHistoryPaginator(api, input)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeSpotPriceHistory: %w", err)
		}
		for _, sp := range page.SpotPriceHistory {
			usd, err := strconv.ParseFloat(sdkaws.ToString(sp.SpotPrice), 64)
			if err != nil || sp.Timestamp == nil || sp.AvailabilityZone == nil {
				continue
			}
			name, zone := string(sp.InstanceType), *sp.AvailabilityZone
			zones := out[name]
			if zones == nil {
				zones = map[string]spotQuote{}
				out[name] = zones
			}
			if prev, ok := zones[zone]; !ok || sp.Timestamp.After(prev.at) {
				zones[zone] = spotQuote{usd: usd, at: *sp.Timestamp}
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("ec2 DescribeSpotPriceHistory: no spot prices listed")
	}
	return out, nil
}
