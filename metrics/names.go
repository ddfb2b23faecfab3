package metrics

// The INFO fields redis_exporter (1.45, Debian's prometheus-redis-exporter)
// turns into metrics, and the names it gives them (after "redis_"): its
// metricMapGauges and metricMapCounters for the fields Redis 7.0 has, so
// that a dashboard built on the exporter finds the same series here.
// Fields named db*, cluster_* are passed through under their own names as
// gauges, as the exporter does.

var infoGauges = map[string]string{
	// Server
	"uptime_in_seconds": "uptime_in_seconds",
	"process_id":        "process_id",
	"io_threads_active": "io_threads_active",

	// Clients
	"connected_clients":               "connected_clients",
	"blocked_clients":                 "blocked_clients",
	"tracking_clients":                "tracking_clients",
	"clients_in_timeout_table":        "clients_in_timeout_table",
	"client_longest_output_list":      "client_longest_output_list",
	"client_biggest_input_buf":        "client_biggest_input_buf",
	"client_recent_max_output_buffer": "client_recent_max_output_buffer_bytes",
	"client_recent_max_input_buffer":  "client_recent_max_input_buffer_bytes",

	// Memory
	"allocator_active":                           "allocator_active_bytes",
	"allocator_allocated":                        "allocator_allocated_bytes",
	"allocator_resident":                         "allocator_resident_bytes",
	"allocator_frag_ratio":                       "allocator_frag_ratio",
	"allocator_frag_bytes":                       "allocator_frag_bytes",
	"allocator_rss_ratio":                        "allocator_rss_ratio",
	"allocator_rss_bytes":                        "allocator_rss_bytes",
	"used_memory":                                "memory_used_bytes",
	"used_memory_rss":                            "memory_used_rss_bytes",
	"used_memory_peak":                           "memory_used_peak_bytes",
	"used_memory_lua":                            "memory_used_lua_bytes",
	"used_memory_overhead":                       "memory_used_overhead_bytes",
	"used_memory_startup":                        "memory_used_startup_bytes",
	"used_memory_dataset":                        "memory_used_dataset_bytes",
	"used_memory_scripts":                        "memory_used_scripts_bytes",
	"number_of_cached_scripts":                   "number_of_cached_scripts",
	"maxmemory":                                  "memory_max_bytes",
	"maxmemory_reservation":                      "memory_max_reservation_bytes",
	"maxmemory_desired_reservation":              "memory_max_reservation_desired_bytes",
	"maxfragmentationmemory_reservation":         "memory_max_fragmentation_reservation_bytes",
	"maxfragmentationmemory_desired_reservation": "memory_max_fragmentation_reservation_desired_bytes",
	"mem_fragmentation_ratio":                    "mem_fragmentation_ratio",
	"mem_fragmentation_bytes":                    "mem_fragmentation_bytes",
	"mem_clients_slaves":                         "mem_clients_slaves",
	"mem_clients_normal":                         "mem_clients_normal",
	"expired_stale_perc":                         "expired_stale_percentage",
	"mem_not_counted_for_evict":                  "mem_not_counted_for_eviction_bytes",
	"lazyfree_pending_objects":                   "lazyfree_pending_objects",
	"active_defrag_running":                      "active_defrag_running",
	"migrate_cached_sockets":                     "migrate_cached_sockets_total",
	"active_defrag_hits":                         "defrag_hits",
	"active_defrag_misses":                       "defrag_misses",
	"active_defrag_key_hits":                     "defrag_key_hits",
	"active_defrag_key_misses":                   "defrag_key_misses",
	"expired_time_cap_reached_count":             "expired_time_cap_reached_total",

	// Persistence
	"loading":                      "loading_dump_file",
	"rdb_changes_since_last_save":  "rdb_changes_since_last_save",
	"rdb_bgsave_in_progress":       "rdb_bgsave_in_progress",
	"rdb_last_save_time":           "rdb_last_save_timestamp_seconds",
	"rdb_last_bgsave_status":       "rdb_last_bgsave_status",
	"rdb_last_bgsave_time_sec":     "rdb_last_bgsave_duration_sec",
	"rdb_current_bgsave_time_sec":  "rdb_current_bgsave_duration_sec",
	"rdb_last_cow_size":            "rdb_last_cow_size_bytes",
	"aof_enabled":                  "aof_enabled",
	"aof_rewrite_in_progress":      "aof_rewrite_in_progress",
	"aof_rewrite_scheduled":        "aof_rewrite_scheduled",
	"aof_last_rewrite_time_sec":    "aof_last_rewrite_duration_sec",
	"aof_current_rewrite_time_sec": "aof_current_rewrite_duration_sec",
	"aof_last_cow_size":            "aof_last_cow_size_bytes",
	"aof_current_size":             "aof_current_size_bytes",
	"aof_base_size":                "aof_base_size_bytes",
	"aof_pending_rewrite":          "aof_pending_rewrite",
	"aof_buffer_length":            "aof_buffer_length",
	"aof_rewrite_buffer_length":    "aof_rewrite_buffer_length",
	"aof_pending_bio_fsync":        "aof_pending_bio_fsync",
	"aof_delayed_fsync":            "aof_delayed_fsync",
	"aof_last_bgrewrite_status":    "aof_last_bgrewrite_status",
	"aof_last_write_status":        "aof_last_write_status",
	"module_fork_in_progress":      "module_fork_in_progress",
	"module_fork_last_cow_size":    "module_fork_last_cow_size",

	// Stats
	"pubsub_channels":         "pubsub_channels",
	"pubsub_patterns":         "pubsub_patterns",
	"latest_fork_usec":        "latest_fork_usec", // then latest_fork_seconds (collect)
	"tracking_total_keys":     "tracking_total_keys",
	"tracking_total_items":    "tracking_total_items",
	"tracking_total_prefixes": "tracking_total_prefixes",

	// Replication
	"connected_slaves":               "connected_slaves",
	"repl_backlog_size":              "replication_backlog_bytes",
	"repl_backlog_active":            "repl_backlog_is_active",
	"repl_backlog_first_byte_offset": "repl_backlog_first_byte_offset",
	"repl_backlog_histlen":           "repl_backlog_history_bytes",
	"master_repl_offset":             "master_repl_offset",
	"second_repl_offset":             "second_repl_offset",
	"slave_expires_tracked_keys":     "slave_expires_tracked_keys",
	"slave_priority":                 "slave_priority",
	"sync_full":                      "replica_resyncs_full",
	"sync_partial_ok":                "replica_partial_resync_accepted",
	"sync_partial_err":               "replica_partial_resync_denied",

	// Cluster
	"cluster_stats_messages_sent":     "cluster_messages_sent_total",
	"cluster_stats_messages_received": "cluster_messages_received_total",
}

var infoCounters = map[string]string{
	"total_connections_received": "connections_received_total",
	"total_commands_processed":   "commands_processed_total",
	"rejected_connections":       "rejected_connections_total",
	"total_net_input_bytes":      "net_input_bytes_total",
	"total_net_output_bytes":     "net_output_bytes_total",
	"expired_keys":               "expired_keys_total",
	"evicted_keys":               "evicted_keys_total",
	"keyspace_hits":              "keyspace_hits_total",
	"keyspace_misses":            "keyspace_misses_total",

	"used_cpu_sys":              "cpu_sys_seconds_total",
	"used_cpu_user":             "cpu_user_seconds_total",
	"used_cpu_sys_children":     "cpu_sys_children_seconds_total",
	"used_cpu_user_children":    "cpu_user_children_seconds_total",
	"used_cpu_sys_main_thread":  "cpu_sys_main_thread_seconds_total",
	"used_cpu_user_main_thread": "cpu_user_main_thread_seconds_total",

	"unexpected_error_replies":     "unexpected_error_replies",
	"total_error_replies":          "total_error_replies",
	"total_reads_processed":        "total_reads_processed",
	"total_writes_processed":       "total_writes_processed",
	"io_threaded_reads_processed":  "io_threaded_reads_processed",
	"io_threaded_writes_processed": "io_threaded_writes_processed",
	"dump_payload_sanitizations":   "dump_payload_sanitizations",
}

// help is the exporter's HELP text of the metrics it describes; the rest
// get "<name> metric", as the exporter's do.
var help = map[string]string{
	"commands_duration_seconds_total":      "Total amount of time in seconds spent per command",
	"commands_failed_calls_total":          "Total number of errors prior command execution per command",
	"commands_rejected_calls_total":        "Total number of errors within command execution per command",
	"commands_total":                       "Total number of calls per command",
	"latency_percentiles_usec":             "A summary of latency percentile distribution per command",
	"connected_slave_lag_seconds":          "Lag of connected slave",
	"connected_slave_offset_bytes":         "Offset of connected slave",
	"db_avg_ttl_seconds":                   "Avg TTL in seconds",
	"db_keys":                              "Total number of keys by DB",
	"db_keys_expiring":                     "Total number of expiring keys by DB",
	"db_keys_cached":                       "Total number of cached keys by DB",
	"errors_total":                         "Total number of errors per error type",
	"instance_info":                        "Information about the Redis instance",
	"last_slow_execution_duration_seconds": "The amount of time needed for last slow execution, in seconds",
	"latency_spike_duration_seconds":       "Length of the last latency spike in seconds",
	"latency_spike_last":                   "When the latency spike last occurred",
	"master_last_io_seconds_ago":           "Master last io seconds ago",
	"master_link_up":                       "Master link status on Redis slave",
	"master_sync_in_progress":              "Master sync in progress",
	"slave_info":                           "Information about the Redis slave",
	"slave_repl_offset":                    "Slave replication offset",
	"slowlog_last_id":                      "Last id of slowlog",
	"slowlog_length":                       "Total slowlog",
	"start_time_seconds":                   "Start time of the Redis instance since unix epoch in seconds.",
	"up":                                   "Information about the Redis instance",
}
