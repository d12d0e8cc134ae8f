/* stack.c — a large local array streamed in a function's frame.
 *
 * stack_stream() has a 64 KiB local array (volatile, so every access is
 * made): one pass of 8192 8-byte stores (line marked LINE:stack_write),
 * then one pass of 8192 8-byte loads in the same order (LINE:stack_read).
 *
 * Expected with --cache=L1=32K:8:64,L2=1M:16:64:
 *   bucket <stack> (with --stack-frames=yes: <stack:stack_stream>),
 *   locations on the marked lines:
 *     write line: Dw = 8192
 *     read line:  Dr = 8192, D1mr = 1024, D2mr = 0
 *   The read pass walks 1024 lines (64 KiB, 64-byte aligned) in the order the
 *   write pass left them; L1 holds 512 lines, so with LRU every line was
 *   evicted before it is read again (as in stream.c): one miss per line.  L2
 *   holds all 1024 lines loaded by the write pass: no L2 read miss.
 *   Other stack accesses (call, push, ret) are on other lines of code.
 */
#include <stdint.h>
#include <stdlib.h>

#define WORDS 8192

volatile uint64_t sink;

__attribute__((noinline)) static uint64_t stack_stream(int seed)
{
	volatile uint64_t buf[WORDS] __attribute__((aligned(64)));
	uint64_t s = 0;
	for (int i = 0; i < WORDS; i++)
		buf[i] = (uint64_t)(i + seed); /* LINE:stack_write */
	for (int i = 0; i < WORDS; i++)
		s += buf[i]; /* LINE:stack_read */
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	sink = stack_stream(argc);
	return 0;
}
