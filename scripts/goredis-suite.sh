#!/usr/bin/env bash
# go-redis's own Ginkgo suite against redis-server 7.0 and floodgate, one
# after the other, then the specs that pass on Redis and not on floodgate
# (docs/client-suites.md). The suite comes from the module cache (its tests
# are in the module zip); BeforeSuite would dial ring shards, sentinels and
# a cluster, so a small patch makes it dial REDIS_PORT alone when
# GOREDIS_STANDALONE is set, and the suites that need those are skipped.
#
#   scripts/goredis-suite.sh            # GOREDIS_VERSION=v9.23.0 by default
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
dir=$(mktemp -d)
trap stop_servers EXIT
version=${GOREDIS_VERSION:-v9.23.0}
src=$(go env GOMODCACHE)/github.com/redis/go-redis/v9@$version
[ -d "$src" ] || (cd "$dir" && go mod init x >/dev/null 2>&1 && go mod download github.com/redis/go-redis/v9@"$version")
cp -r "$src" "$dir/goredis" && chmod -R u+w "$dir/goredis"
python3 - "$dir/goredis/main_test.go" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
for old, new in [
    ("\tredisAddr = redisStackAddr\n",
     "\tredisAddr = redisStackAddr\n\tstandalone := os.Getenv(\"GOREDIS_STANDALONE\") != \"\"\n"
     "\tif standalone {\n\t\tredisPort, redisAddr = addr, \":\"+addr\n\t}\n"),
    ("\tif !RECluster {\n\t\tringShard1", "\tif !RECluster && !standalone {\n\t\tringShard1"),
    ("AfterSuite(func() {\n\tif !RECluster {", "AfterSuite(func() {\n\tif !RECluster && os.Getenv(\"GOREDIS_STANDALONE\") == \"\" {"),
]:
    assert old in s, old
    s = s.replace(old, new, 1)
open(p, "w").write(s)
EOF
(cd "$dir/goredis" && go test -c -o "$dir/goredis.test" .)
start_redis 17451
start_floodgate 17452
wait_ping 17451 17452
for run in redis:17451 floodgate:17452; do
	name=${run%:*} port=${run#*:}
	(cd "$dir/goredis" && GOREDIS_STANDALONE=1 REDIS_PORT=$port REDIS_VERSION=7.0 RE_CLUSTER=false RCE_DOCKER=false \
		"$dir/goredis.test" -test.run '^TestGinkgoSuite$' -test.timeout 30m \
		-ginkgo.skip-file 'osscluster|sentinel|ring_test|universal_test|search_|json_test|timeseries|probabilistic|tls_|array_commands|himport|hotkeys|vectorset|internal_test' \
		-ginkgo.skip 'cluster races|ClusterClient|Ring|Sentinel' \
		-ginkgo.json-report "$dir/$name.json" >"$dir/$name.out" 2>&1) || true
done
python3 - "$dir/redis.json" "$dir/floodgate.json" <<'EOF'
import collections, json, re, sys
def load(f):
    out = {}
    for s in json.load(open(f))[0]["SpecReports"]:
        if s.get("LeafNodeType") == "It":
            loc = s["LeafNodeLocation"]
            # Specs made in a loop share a line: the containers tell them apart.
            key = "%s:%d %s" % (loc["FileName"].split("/")[-1], loc["LineNumber"],
                                " / ".join((s.get("ContainerHierarchyTexts") or []) + [s["LeafNodeText"]]))
            out[key] = (s["State"], (s.get("Failure") or {}).get("Message", "").replace("\n", " "))
    return out
redis, fg = load(sys.argv[1]), load(sys.argv[2])
for name, d in (("redis", redis), ("floodgate", fg)):
    print(name, dict(collections.Counter(v[0] for v in d.values())))
features = collections.Counter()
for key, (state, _) in sorted(redis.items()):
    if state == "passed" and fg[key][0] != "passed":
        m = re.search(r"unknown (?:command|subcommand) '([^']+)'", fg[key][1])
        features[m.group(1).lower() if m else "other"] += 1
        print("  %-9s %s\n            %s" % (fg[key][0], key, fg[key][1][:200]))
print("passes on Redis only, by the command refused:", dict(features))
EOF
