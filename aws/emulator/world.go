package emulator

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strings"
	"time"

	"github.com/nodepilot/nodepilot/aws/catalog"
)

// world is the emulated account's fixed scenery: zones with their subnets, security groups,
// AMIs behind the public SSM parameters, roles and the instance types. Subnets' free address
// counts change; everything else is fixed at start. Identifiers are hashes of names, so the
// same configuration always has the same ids.
type world struct {
	region, accountID, cluster string
	vpcID                      string
	zones                      []zone
	subnets                    []*subnet
	groups                     []*securityGroup
	images                     []*image
	imageByID                  map[string]*image
	// parameters maps the public SSM parameter names to AMI ids.
	parameters map[string]string
	types      []*instanceType
	typeByName map[string]*instanceType
	roles      map[string]*role
}

// zone is one availability zone of the region.
type zone struct {
	Name, ID string
	// catalogName is the us-east-1 zone of the catalog with the same letter.
	catalogName string
}

type subnet struct {
	ID, VpcID, Zone, ZoneID, CIDR string
	Free                          int
	Tags                          map[string]string
	// first is the first address EC2 hands out (the fifth of the block); size is how many
	// there are; next counts the addresses handed out so far.
	first netip.Addr
	size  int
	next  int
}

type securityGroup struct {
	ID, Name, Description, VpcID string
	Tags                         map[string]string
}

type image struct {
	ID, Name, Description string
	// Arch is EC2's spelling: x86_64 or arm64.
	Arch                string
	OwnerID, OwnerAlias string
	Created             time.Time
	Public              bool
	Tags                map[string]string
	RootDevice          string
}

type role struct {
	Name, ID, Arn string
	Created       time.Time
	Tags          map[string]string
}

// instanceType is a catalog entry with the EC2 facts the catalog leaves implicit.
type instanceType struct {
	catalog.Entry
	// ENIs and IPv4PerENI satisfy ENIs x (IPv4PerENI - 1) + 2 = MaxPodsENI, as the catalog's pod
	// limit was computed.
	ENIs, IPv4PerENI int64
	// Zones are the emulated zones the type is offered in, in configuration order.
	Zones []string
}

// The Kubernetes minor versions whose EKS AMI parameters exist: 1.28 to 1.40, AL2's to 1.32.
const firstMinor, lastMinor, lastAL2Minor = 28, 40, 32

// amiRelease is the release every public AMI claims (the emulator has one release per version).
const amiRelease = "v20260701"

var amiReleaseDate = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

// Account ids of the public AMI owners.
const (
	eksAMIOwner          = "602401143452"
	bottlerocketAMIOwner = "092701018921"
)

func newWorld(cfg Config, cat *catalog.Catalog) *world {
	w := &world{
		region: cfg.Region, accountID: cfg.AccountID, cluster: cfg.ClusterName,
		imageByID: map[string]*image{}, parameters: map[string]string{},
		typeByName: map[string]*instanceType{}, roles: map[string]*role{},
	}
	w.vpcID = hashID("vpc", cfg.AccountID, cfg.Region, cfg.ClusterName)
	for i, name := range cfg.Zones {
		letter := name[len(name)-1:]
		z := zone{Name: name, ID: zoneID(cfg.Region, letter), catalogName: catalog.Region + letter}
		w.zones = append(w.zones, z)
		tags := map[string]string{"Name": fmt.Sprintf("%s-private-%s", cfg.ClusterName, name)}
		for k, v := range cfg.DiscoveryTags {
			tags[k] = v
		}
		base := netip.AddrFrom4([4]byte{10, 0, byte(32 * i), 0})
		w.subnets = append(w.subnets, &subnet{
			ID: hashID("subnet", w.vpcID, name), VpcID: w.vpcID, Zone: name, ZoneID: z.ID,
			CIDR: base.String() + "/19", Free: cfg.FreeAddresses, Tags: tags,
			first: base.Next().Next().Next().Next(), size: 8192 - 5,
		})
	}
	w.addSecurityGroups(cfg)
	w.addImages(cfg)
	for _, name := range cfg.Roles {
		w.roles[name] = &role{
			Name: name, ID: "AROA" + strings.ToUpper(hashHex(name, 17)),
			Arn:     "arn:aws:iam::" + cfg.AccountID + ":role/" + name,
			Created: amiReleaseDate.AddDate(0, -6, 0), Tags: map[string]string{},
		}
	}
	for _, e := range cat.Entries {
		t := &instanceType{Entry: e}
		t.ENIs, t.IPv4PerENI = interfaces(e.MaxPodsENI)
		for _, z := range w.zones {
			for _, cz := range e.Zones {
				if cz == z.catalogName {
					t.Zones = append(t.Zones, z.Name)
				}
			}
		}
		w.types = append(w.types, t)
		w.typeByName[e.Name] = t
	}
	return w
}

func (w *world) addSecurityGroups(cfg Config) {
	nodeTags := map[string]string{"Name": cfg.ClusterName + "-node"}
	for k, v := range cfg.DiscoveryTags {
		nodeTags[k] = v
	}
	for _, g := range []securityGroup{
		{Name: "default", Description: "default VPC security group", Tags: map[string]string{}},
		{Name: cfg.ClusterName + "-node", Description: "EKS node shared security group", Tags: nodeTags},
		{Name: "eks-cluster-sg-" + cfg.ClusterName, Description: "EKS created security group applied to ENI that is attached to EKS Control Plane master nodes, as well as any managed workloads.",
			Tags: map[string]string{"kubernetes.io/cluster/" + cfg.ClusterName: "owned", "aws:eks:cluster-name": cfg.ClusterName}},
	} {
		g.ID = hashID("sg", w.vpcID, g.Name)
		g.VpcID = w.vpcID
		w.groups = append(w.groups, &g)
	}
}

// addImages creates the EKS optimized and Bottlerocket AMIs behind the public SSM parameters
// for every Kubernetes version (AL2's up to 1.32, as EKS publishes them), and four custom AMIs
// owned by the account and tagged for discovery (two per architecture, a month apart, so that
// "newest" has a meaning).
func (w *world) addImages(cfg Config) {
	for minor := firstMinor; minor <= lastMinor; minor++ {
		v := fmt.Sprintf("1.%d", minor)
		for _, a := range []struct {
			param, name, arch, owner string
			last                     int // the last minor version it is published for; 0: all
		}{
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/standard/recommended/image_id", "amazon-eks-node-al2023-x86_64-standard-%s-" + amiRelease, "x86_64", eksAMIOwner, 0},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/arm64/standard/recommended/image_id", "amazon-eks-node-al2023-arm64-standard-%s-" + amiRelease, "arm64", eksAMIOwner, 0},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/nvidia/recommended/image_id", "amazon-eks-node-al2023-x86_64-nvidia-%s-" + amiRelease, "x86_64", eksAMIOwner, 0},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/arm64/nvidia/recommended/image_id", "amazon-eks-node-al2023-arm64-nvidia-%s-" + amiRelease, "arm64", eksAMIOwner, 0},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/neuron/recommended/image_id", "amazon-eks-node-al2023-x86_64-neuron-%s-" + amiRelease, "x86_64", eksAMIOwner, 0},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2/recommended/image_id", "amazon-eks-node-%s-" + amiRelease, "x86_64", eksAMIOwner, lastAL2Minor},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2-arm64/recommended/image_id", "amazon-eks-arm64-node-%s-" + amiRelease, "arm64", eksAMIOwner, lastAL2Minor},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2-gpu/recommended/image_id", "amazon-eks-gpu-node-%s-" + amiRelease, "x86_64", eksAMIOwner, lastAL2Minor},
			{"/aws/service/bottlerocket/aws-k8s-%s/x86_64/latest/image_id", "bottlerocket-aws-k8s-%s-x86_64-v1.40.0-4a2f1c5e", "x86_64", bottlerocketAMIOwner, 0},
			{"/aws/service/bottlerocket/aws-k8s-%s/arm64/latest/image_id", "bottlerocket-aws-k8s-%s-aarch64-v1.40.0-4a2f1c5e", "arm64", bottlerocketAMIOwner, 0},
			{"/aws/service/bottlerocket/aws-k8s-%s-nvidia/x86_64/latest/image_id", "bottlerocket-aws-k8s-%s-nvidia-x86_64-v1.40.0-4a2f1c5e", "x86_64", bottlerocketAMIOwner, 0},
			{"/aws/service/bottlerocket/aws-k8s-%s-nvidia/arm64/latest/image_id", "bottlerocket-aws-k8s-%s-nvidia-aarch64-v1.40.0-4a2f1c5e", "arm64", bottlerocketAMIOwner, 0},
		} {
			if a.last != 0 && minor > a.last {
				continue
			}
			name := fmt.Sprintf(a.name, v)
			img := &image{
				ID: hashID("ami", cfg.Region, name), Name: name, Arch: a.arch, OwnerID: a.owner, OwnerAlias: "amazon",
				Description: "EKS Kubernetes Worker AMI (synthetic, nodepilot emulator) " + name,
				Created:     amiReleaseDate, Public: true, Tags: map[string]string{}, RootDevice: "/dev/xvda",
			}
			w.addImage(img)
			w.parameters[fmt.Sprintf(a.param, v)] = img.ID
		}
	}
	for i, c := range []struct {
		arch string
		age  int
	}{{"x86_64", 0}, {"x86_64", 1}, {"arm64", 0}, {"arm64", 1}} {
		created := amiReleaseDate.AddDate(0, -c.age, 0)
		name := fmt.Sprintf("nodepilot-custom-al2023-%s-%s", c.arch, created.Format("20060102"))
		w.addImage(&image{
			ID: hashID("ami", cfg.Region, name), Name: name, Arch: c.arch, OwnerID: cfg.AccountID,
			Description: fmt.Sprintf("custom node image %d (synthetic, nodepilot emulator)", i+1), Created: created,
			Tags:       map[string]string{"karpenter.sh/discovery": cfg.ClusterName, "Name": name, "team": "platform"},
			RootDevice: "/dev/xvda",
		})
	}
}

func (w *world) addImage(img *image) {
	w.images = append(w.images, img)
	w.imageByID[img.ID] = img
}

func (w *world) subnetByID(id string) *subnet {
	for _, s := range w.subnets {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func (w *world) groupByID(id string) *securityGroup {
	for _, g := range w.groups {
		if g.ID == id {
			return g
		}
	}
	return nil
}

func (w *world) zoneByName(name string) (zone, bool) {
	for _, z := range w.zones {
		if z.Name == name {
			return z, true
		}
	}
	return zone{}, false
}

// allocateIP takes one free address of the subnet. The caller holds the emulator's lock.
func (s *subnet) allocateIP() netip.Addr {
	first := s.first.As4()
	n := binary.BigEndian.Uint32(first[:]) + uint32(s.next%s.size)
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	s.next++
	s.Free--
	return netip.AddrFrom4(b)
}

// interfaces splits a pod limit computed as ENIs x (IPv4 per ENI - 1) + 2 back into its two
// factors, preferring the address counts EC2 actually uses (50, 30, 15, 12, 10, 6, 4, 2).
func interfaces(maxPods int64) (enis, ipv4 int64) {
	n := maxPods - 2
	if n <= 0 {
		return 1, 1
	}
	for _, ips := range []int64{50, 30, 15, 12, 10, 6, 4, 2} {
		if n%(ips-1) == 0 && n/(ips-1) >= 2 && n/(ips-1) <= 16 {
			return n / (ips - 1), ips
		}
	}
	for e := int64(16); e >= 1; e-- {
		if n%e == 0 {
			return e, n/e + 1
		}
	}
	return 1, n + 1
}

// zoneID returns the zone id of a zone letter: us-east-1a is use1-az4 as in many accounts.
func zoneID(region, letter string) string {
	number := map[string]string{"a": "4", "b": "6", "c": "1", "d": "2", "e": "3", "f": "5"}[letter]
	return regionShort(region) + "-az" + number
}

// regionShort abbreviates a region as zone ids do: us-east-1 is use1, ap-southeast-2 is apse2.
func regionShort(region string) string {
	parts := strings.Split(region, "-")
	if len(parts) != 3 {
		return region
	}
	dir := map[string]string{"north": "n", "south": "s", "east": "e", "west": "w", "central": "c",
		"northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw"}[parts[1]]
	if dir == "" {
		dir = parts[1][:1]
	}
	return parts[0] + dir + parts[2]
}

// hashID returns prefix-HEX, 17 hex digits of a hash of the parts.
func hashID(prefix string, parts ...string) string {
	return prefix + "-" + hashHex(strings.Join(parts, "\x00"), 17)
}

func hashHex(s string, n int) string {
	h := fnv.New128a()
	h.Write([]byte(s))
	sum := h.Sum(nil)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], binary.BigEndian.Uint64(sum[8:]))
	return fmt.Sprintf("%x%x", sum[:8], b)[:n]
}
