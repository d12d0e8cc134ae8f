/* nat_replay.c — recorded samples fed through the attribution path. */
#include "engine/native/nat.h"

int nat_replay_run(const char *path)
{
	return 0;
}
