/*
 * pslots.h: the path slot of an open file (bpf/vfs.bpf.c vfs_pslots), a hash
 * of its struct file: the vfs object's records and the block object's
 * direct async calls (blk-kio.h) name their file by it, and user space
 * (src/source-live-paths.c) puts the path it holds for that slot back.
 */
#ifndef BLKTOP_PSLOTS_H
#define BLKTOP_PSLOTS_H

static __always_inline __u32 pslot_of(const struct file *f)
{
	__u64 h = (__u64)f;

	return (__u32)((h >> 8) ^ (h >> 22)) & (VFS_PSLOTS - 1);
}

#endif
