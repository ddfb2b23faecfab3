package server

// Cluster commands, as Redis 7.0 answers them with cluster-enabled no (the
// only value floodgate accepts): every one is known and checked for arity,
// and refused. Their metadata is Redis 7.0.15's (commands_gen.go).

var clusterHandlers = map[string]Handler{
	"cluster|getkeysinslot":         refuse(errClusterDisabled),
	"cluster|reset":                 refuse(errClusterDisabled),
	"cluster|flushslots":            refuse(errClusterDisabled),
	"cluster|setslot":               refuse(errClusterDisabled),
	"cluster|bumpepoch":             refuse(errClusterDisabled),
	"cluster|countkeysinslot":       refuse(errClusterDisabled),
	"cluster|addslotsrange":         refuse(errClusterDisabled),
	"cluster|keyslot":               refuse(errClusterDisabled),
	"cluster|slots":                 refuse(errClusterDisabled),
	"cluster|myid":                  refuse(errClusterDisabled),
	"cluster|info":                  refuse(errClusterDisabled),
	"cluster|help":                  refuse(errClusterDisabled),
	"cluster|saveconfig":            refuse(errClusterDisabled),
	"cluster|meet":                  refuse(errClusterDisabled),
	"cluster|nodes":                 refuse(errClusterDisabled),
	"cluster|forget":                refuse(errClusterDisabled),
	"cluster|delslots":              refuse(errClusterDisabled),
	"cluster|slaves":                refuse(errClusterDisabled),
	"cluster|addslots":              refuse(errClusterDisabled),
	"cluster|links":                 refuse(errClusterDisabled),
	"cluster|replicas":              refuse(errClusterDisabled),
	"cluster|count-failure-reports": refuse(errClusterDisabled),
	"cluster|shards":                refuse(errClusterDisabled),
	"cluster|delslotsrange":         refuse(errClusterDisabled),
	"cluster|set-config-epoch":      refuse(errClusterDisabled),
	"cluster|failover":              refuse(errClusterDisabled),
	"cluster|replicate":             refuse(errClusterDisabled),
	"readonly":                      refuse(errClusterDisabled),
	"readwrite":                     refuse(errClusterDisabled),
	"asking":                        refuse(errClusterDisabled),
}

const errClusterDisabled = "ERR This instance has cluster support disabled"
