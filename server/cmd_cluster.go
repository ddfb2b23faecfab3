package server

// Cluster commands, as Redis 7.0 answers them with cluster-enabled no (the
// only value floodgate accepts): every one is known and checked for arity,
// and refused. The rows are Redis 7.0.15's COMMAND INFO and DOCS.

var clusterCommands = []*Command{
	{Name: "cluster", Arity: -2, Group: "cluster", Summary: "A container for cluster commands", Since: "3.0.0", Subcommands: []*Command{
		{Name: "getkeysinslot", Arity: 4, Flags: FlagStale, Group: "cluster", Summary: "Return local key names in the specified hash slot", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "reset", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagStale, Group: "cluster", Summary: "Reset a Redis Cluster node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "flushslots", Arity: 2, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Delete a node's own slots information", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "setslot", Arity: -4, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Bind a hash slot to a specific node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "bumpepoch", Arity: 2, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Advance the cluster config epoch", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "countkeysinslot", Arity: 3, Flags: FlagStale, Group: "cluster", Summary: "Return the number of local keys in the specified hash slot", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "addslotsrange", Arity: -4, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Assign new hash slots to receiving node", Since: "7.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "keyslot", Arity: 3, Flags: FlagStale, Group: "cluster", Summary: "Returns the hash slot of the specified key", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "slots", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Get array of Cluster slot to node mappings", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "myid", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Return the node id", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "info", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Provides info about Redis Cluster node state", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "cluster", Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "saveconfig", Arity: 2, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Forces the node to save cluster state on disk", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "meet", Arity: -4, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Force a node cluster to handshake with another node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "nodes", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Get Cluster config for the node", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "forget", Arity: 3, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Remove a node from the nodes table", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "delslots", Arity: -3, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Set hash slots as unbound in receiving node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "slaves", Arity: 3, Flags: FlagAdmin | FlagStale, Group: "cluster", Summary: "List replica nodes of the specified master node", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "addslots", Arity: -3, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Assign new hash slots to receiving node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "links", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Returns a list of all TCP links to and from peer nodes in cluster", Since: "7.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "replicas", Arity: 3, Flags: FlagAdmin | FlagStale, Group: "cluster", Summary: "List replica nodes of the specified master node", Since: "5.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "count-failure-reports", Arity: 3, Flags: FlagAdmin | FlagStale, Group: "cluster", Summary: "Return the number of failure reports active for a given node", Since: "3.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "shards", Arity: 2, Flags: FlagStale, Group: "cluster", Summary: "Get array of cluster slots to node mappings", Since: "7.0.0", Tips: []string{"nondeterministic_output"}, Handler: refuse(errClusterDisabled)},
		{Name: "delslotsrange", Arity: -4, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Set hash slots as unbound in receiving node", Since: "7.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "set-config-epoch", Arity: 3, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Set the configuration epoch in a new node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "failover", Arity: -2, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Forces a replica to perform a manual failover of its master.", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
		{Name: "replicate", Arity: 3, Flags: FlagAdmin | FlagStale | FlagNoAsyncLoading, Group: "cluster", Summary: "Reconfigure a node as a replica of the specified master node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
	}},
	{Name: "readonly", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, ACL: []string{"connection"}, Group: "cluster", Summary: "Enables read queries for a connection to a cluster replica node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
	{Name: "readwrite", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, ACL: []string{"connection"}, Group: "cluster", Summary: "Disables read queries for a connection to a cluster replica node", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
	{Name: "asking", Arity: 1, Flags: FlagFast, ACL: []string{"connection"}, Group: "cluster", Summary: "Sent by cluster clients after an -ASK redirect", Since: "3.0.0", Handler: refuse(errClusterDisabled)},
}

func init() { register(clusterCommands...) }

const errClusterDisabled = "ERR This instance has cluster support disabled"
