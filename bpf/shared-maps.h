/* shared-maps.h: the maps every blktop BPF object shares; the loader reuses the first object's fds. */
#ifndef BLKTOP_SHARED_MAPS_H
#define BLKTOP_SHARED_MAPS_H

/* All events, block and vfs, in one ring: one consumer, one order. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* enum blktop_counter, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

#endif
