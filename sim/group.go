package sim

// A Group is the part of a run a setting shapes; help lists the settings
// group by group, in the groups' order here, each under its title. Every
// row of the settings table declares its group (Row.group).
type Group int

// The groups of settings, in the order help lists them. GroupNone is no
// group: a row left without one (the tests refuse it).
const (
	GroupNone Group = iota
	GroupRun
	GroupQueues
	GroupShapes
	GroupFaults
	GroupClient
	GroupFleet
	numGroups
)

var groupTitles = [numGroups]string{
	GroupNone:   "",
	GroupRun:    "The run: pool, arrivals, scaling, changes",
	GroupQueues: "Queues and policies",
	GroupShapes: "Service-time shapes",
	GroupFaults: "Faults",
	GroupClient: "The client side: timeouts, retries, health checks",
	GroupFleet:  "Fleet: balancers and what they know",
}

// Groups returns the groups of settings in the order help lists them
// (GroupNone left out).
func Groups() []Group {
	gs := make([]Group, 0, numGroups-1)
	for g := GroupNone + 1; g < numGroups; g++ {
		gs = append(gs, g)
	}
	return gs
}

// Title returns the group's heading in help, "" for GroupNone or a
// number that is no group.
func (g Group) Title() string {
	if g < 0 || g >= numGroups {
		return ""
	}
	return groupTitles[g]
}

// group sets the part of a run the setting shapes (Row.Group).
func (r Row) group(g Group) Row { r.Group = g; return r }
