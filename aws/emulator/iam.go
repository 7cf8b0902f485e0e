package emulator

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// instanceProfile is an IAM instance profile with at most one role, as IAM allows.
type instanceProfile struct {
	Name, ID, Arn, Path string
	Created             time.Time
	Roles               []*role
	Tags                map[string]string
}

// defaultProfile exists from the start, holding KarpenterNodeRole when that role exists.
const defaultProfile = "KarpenterNodeInstanceProfile"

// addDefaultProfile creates KarpenterNodeInstanceProfile. The caller holds e.mu or has not
// shared the emulator yet.
func (e *Emulator) addDefaultProfile() {
	p := e.newProfile(defaultProfile, "/", e.now())
	if r := e.world.roles["KarpenterNodeRole"]; r != nil {
		p.Roles = []*role{r}
	}
	e.profiles[p.Name] = p
}

func (e *Emulator) newProfile(name, path string, now time.Time) *instanceProfile {
	return &instanceProfile{Name: name, Path: path, Created: now, Tags: map[string]string{},
		ID:  "AIPA" + strings.ToUpper(hashHex("profile\x00"+name+now.String(), 17)),
		Arn: "arn:aws:iam::" + e.cfg.AccountID + ":instance-profile" + path + name}
}

// profileFor finds a profile by name or ARN. The caller holds e.mu.
func (e *Emulator) profileFor(name, arn string) *instanceProfile {
	if name != "" {
		return e.profiles[name]
	}
	for _, p := range e.profiles {
		if p.Arn == arn {
			return p
		}
	}
	return nil
}

const iamTimeFormat = "2006-01-02T15:04:05Z"

type xmlIAMTag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

func iamTags(tags map[string]string) []xmlIAMTag {
	out := make([]xmlIAMTag, 0, len(tags))
	for k, v := range tags {
		out = append(out, xmlIAMTag{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

type xmlRole struct {
	Path                     string      `xml:"Path"`
	RoleName                 string      `xml:"RoleName"`
	RoleID                   string      `xml:"RoleId"`
	Arn                      string      `xml:"Arn"`
	CreateDate               string      `xml:"CreateDate"`
	AssumeRolePolicyDocument string      `xml:"AssumeRolePolicyDocument"`
	MaxSessionDuration       int         `xml:"MaxSessionDuration"`
	Tags                     []xmlIAMTag `xml:"Tags>member,omitempty"`
}

type xmlProfile struct {
	Path                string      `xml:"Path"`
	InstanceProfileName string      `xml:"InstanceProfileName"`
	InstanceProfileID   string      `xml:"InstanceProfileId"`
	Arn                 string      `xml:"Arn"`
	CreateDate          string      `xml:"CreateDate"`
	Roles               xmlRoles    `xml:"Roles"`
	Tags                []xmlIAMTag `xml:"Tags>member,omitempty"`
}

type xmlRoles struct {
	Members []xmlRole `xml:"member"`
}

const ec2TrustPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

func roleXML(r *role) xmlRole {
	return xmlRole{Path: "/", RoleName: r.Name, RoleID: r.ID, Arn: r.Arn, CreateDate: r.Created.UTC().Format(iamTimeFormat),
		AssumeRolePolicyDocument: url.QueryEscape(ec2TrustPolicy), MaxSessionDuration: 3600, Tags: iamTags(r.Tags)}
}

func profileXML(p *instanceProfile) xmlProfile {
	x := xmlProfile{Path: p.Path, InstanceProfileName: p.Name, InstanceProfileID: p.ID, Arn: p.Arn,
		CreateDate: p.Created.UTC().Format(iamTimeFormat), Tags: iamTags(p.Tags)}
	for _, r := range p.Roles {
		x.Roles.Members = append(x.Roles.Members, roleXML(r))
	}
	return x
}

type instanceProfileResult struct {
	InstanceProfile xmlProfile `xml:"InstanceProfile"`
}

type roleResult struct {
	Role xmlRole `xml:"Role"`
}

func errNoSuchProfile(name string) *apiError {
	return newError(http.StatusNotFound, "NoSuchEntity", "Instance Profile "+name+" cannot be found.")
}

func errNoSuchRole(name string) *apiError {
	return newError(http.StatusNotFound, "NoSuchEntity", "The role with name "+name+" cannot be found.")
}

var iamNamePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)

func (e *Emulator) getInstanceProfile(q query) (any, error) {
	name := q.str("InstanceProfileName")
	p := e.profiles[name]
	if p == nil {
		return nil, errNoSuchProfile(name)
	}
	return instanceProfileResult{InstanceProfile: profileXML(p)}, nil
}

func (e *Emulator) createInstanceProfile(q query) (any, error) {
	name := q.str("InstanceProfileName")
	if !iamNamePattern.MatchString(name) {
		return nil, newError(0, "ValidationError", "1 validation error detected: Value '"+name+"' at 'instanceProfileName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+")
	}
	if e.profiles[name] != nil {
		return nil, newError(http.StatusConflict, "EntityAlreadyExists", "Instance Profile "+name+" already exists.")
	}
	path := q.str("Path")
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") {
		return nil, newError(0, "ValidationError", "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	p := e.newProfile(name, path, e.now())
	for k, v := range q.tags("Tags.member") {
		p.Tags[k] = v
	}
	e.profiles[name] = p
	return instanceProfileResult{InstanceProfile: profileXML(p)}, nil
}

func (e *Emulator) addRoleToInstanceProfile(q query) (any, error) {
	name, roleName := q.str("InstanceProfileName"), q.str("RoleName")
	p := e.profiles[name]
	if p == nil {
		return nil, errNoSuchProfile(name)
	}
	r := e.world.roles[roleName]
	if r == nil {
		return nil, errNoSuchRole(roleName)
	}
	if len(p.Roles) > 0 {
		return nil, newError(http.StatusConflict, "LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	}
	p.Roles = []*role{r}
	return nil, nil
}

func (e *Emulator) removeRoleFromInstanceProfile(q query) (any, error) {
	name, roleName := q.str("InstanceProfileName"), q.str("RoleName")
	p := e.profiles[name]
	if p == nil {
		return nil, errNoSuchProfile(name)
	}
	for i, r := range p.Roles {
		if r.Name == roleName {
			p.Roles = append(p.Roles[:i], p.Roles[i+1:]...)
			return nil, nil
		}
	}
	return nil, errNoSuchRole(roleName)
}

func (e *Emulator) getRole(q query) (any, error) {
	name := q.str("RoleName")
	r := e.world.roles[name]
	if r == nil {
		return nil, errNoSuchRole(name)
	}
	return roleResult{Role: roleXML(r)}, nil
}

func (e *Emulator) tagInstanceProfile(q query) (any, error) {
	name := q.str("InstanceProfileName")
	p := e.profiles[name]
	if p == nil {
		return nil, errNoSuchProfile(name)
	}
	tags := q.tags("Tags.member")
	if len(tags) == 0 {
		return nil, newError(0, "ValidationError", "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	for k, v := range tags {
		p.Tags[k] = v
	}
	if len(p.Tags) > 50 {
		return nil, newError(http.StatusConflict, "LimitExceeded", "The number of tags has reached the maximum limit.")
	}
	return nil, nil
}

func (e *Emulator) deleteInstanceProfile(q query) (any, error) {
	name := q.str("InstanceProfileName")
	p := e.profiles[name]
	if p == nil {
		return nil, errNoSuchProfile(name)
	}
	if len(p.Roles) > 0 {
		return nil, newError(http.StatusConflict, "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.")
	}
	delete(e.profiles, name)
	return nil, nil
}

// InstanceProfiles returns the names of the instance profiles that exist, sorted.
func (e *Emulator) InstanceProfiles() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.profiles))
}

type listInstanceProfilesResult struct {
	InstanceProfiles []xmlProfile `xml:"InstanceProfiles>member"`
	IsTruncated      bool         `xml:"IsTruncated"`
	Marker           string       `xml:"Marker,omitempty"`
}

// listInstanceProfiles lists the instance profiles under PathPrefix by name, MaxItems (1 to
// 1000, default 100) at a time; the Marker is the name the next page starts after.
func (e *Emulator) listInstanceProfiles(q query) (any, error) {
	prefix := q.str("PathPrefix")
	if prefix == "" {
		prefix = "/"
	}
	size := 100
	if q.has("MaxItems") {
		n, err := strconv.Atoi(q.str("MaxItems"))
		if err != nil || n < 1 || n > 1000 {
			return nil, newError(0, "ValidationError", "1 validation error detected: Value '"+q.str("MaxItems")+"' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000")
		}
		size = n
	}
	marker := q.str("Marker")
	names := make([]string, 0, len(e.profiles))
	for name, p := range e.profiles {
		if strings.HasPrefix(p.Path, prefix) && name > marker {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := listInstanceProfilesResult{}
	if len(names) > size {
		names, out.IsTruncated = names[:size], true
		out.Marker = names[size-1]
	}
	for _, name := range names {
		out.InstanceProfiles = append(out.InstanceProfiles, profileXML(e.profiles[name]))
	}
	return out, nil
}
