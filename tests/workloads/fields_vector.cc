// fields_vector.cc — std::vector buffers typed from the statement that
// allocates them (report --by field, test_engine_fields.py), built -O2 -g.
// The library's frames (stl_vector.h, vector.tcc, new_allocator.h) are
// skipped in a heap bucket's name, so each block is named by this file's
// line, and the type report --by field must name there is the vector's
// element type, as the source declares it:
//   SITE:resize       pts.resize(n), a local vector<Point>         Point
//   SITE:reserve      cloud.pts.reserve(n), a member of a local    Point
//   SITE:push_back    g->edges.push_back(...), through a pointer   Edge
//   SITE:emplace_back edges.emplace_back(...), a bare member in a
//                     method (this->edges)                         Edge
//   SITE:assign       this->cells.assign(n, ...)                   Cell
//   SITE:insert       more.insert(more.end(), ...)                 Point
//   SITE:declsize     std::vector<Particle> parts(n)               Particle
//   SITE:declinit     std::vector<Cell> init = {...}               Cell
//   SITE:copy         std::vector<Point> copy(pts)                 Point
//   SITE:string       s.resize(1000), a std::string                char
// and no type, with the reason, for
//   SITE:bits         std::vector<bool> flags(64 * n): bits packed in words
//   SITE:map          byid[i] = ..., a std::map: its blocks are tree nodes
//   SITE:dequedecl    std::deque<Point> dq: a deque allocates its map of
//                     chunk pointers and its first chunk when constructed
//   SITE:deque        dq.push_back(...): the n = 32 Points outgrow the
//                     first chunk (512 bytes, 16 Points): a new chunk
// Counts (n = N = 32, no arguments): the reserve block holds N Points of
// 32 bytes (x, y, z at 0, 8, 16, id at 24), filled by push_back without
// growing it (the capacity is reserved), then sum_id reads each id R = 4
// times and nothing else reads the block: id has R * N = 128 reads.  No
// other vector is copied from cloud.pts, and sum_id's double sum is not
// vectorized (FP addition is not reassociated without -ffast-math), so
// the reads are those 128 four-byte loads of id.
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <vector>

struct Point {
	double x, y, z;
	int id;
};

struct Particle {
	double pos[3];
	double mass;
	long tag;
};

struct Edge {
	int from, to;
	float w;
};

struct Cell {
	long key;
	double val;
};

struct Cloud {
	std::vector<Point> pts;
};

struct Graph {
	std::vector<Edge> edges;
};

struct Mesh {
	std::vector<Edge> edges;
	std::vector<Cell> cells;

	__attribute__((noipa)) void build(int n)
	{
		for (int i = 0; i < n; i++)
			edges.emplace_back(Edge{i, i + 1, 1.0f});   /* SITE:emplace_back */
		this->cells.assign(n, Cell{1, 2.0});            /* SITE:assign */
	}
};

static __attribute__((noipa)) void grow(Graph *g, int n)
{
	for (int i = 0; i < n; i++)
		g->edges.push_back(Edge{i, 0, 0.5f});           /* SITE:push_back */
}

static __attribute__((noipa)) double sum_id(const Cloud &c, int r)
{
	double s = 0;

	for (int k = 0; k < r; k++)
		for (size_t i = 0; i < c.pts.size(); i++)
			s += c.pts[i].id;
	return s;
}

int main(int argc, char **argv)
{
	int n = 32 + (argc > 1 ? std::atoi(argv[1]) : 0);
	Cloud cloud;
	Graph g;
	Mesh m;
	std::vector<Point> pts, more;
	std::string s;
	std::map<int, Point> byid;
	std::deque<Point> dq;                                   /* SITE:dequedecl */

	pts.resize(n);                                          /* SITE:resize */
	cloud.pts.reserve(n);                                   /* SITE:reserve */
	for (int i = 0; i < n; i++)
		cloud.pts.push_back(Point{1.0, 2.0, 3.0, i});
	std::vector<Particle> parts(n);                         /* SITE:declsize */
	std::vector<Cell> init = {{1, 1.0}, {2, 2.0}};          /* SITE:declinit */
	std::vector<Point> copy(pts);                           /* SITE:copy */
	more.insert(more.end(), pts.begin(), pts.end());        /* SITE:insert */
	s.resize(1000);                                         /* SITE:string */
	std::vector<bool> flags(64 * n);                        /* SITE:bits */
	for (int i = 0; i < n; i++)
		byid[i] = pts[i];                                   /* SITE:map */
	for (int i = 0; i < n; i++)
		dq.push_back(pts[i]);                               /* SITE:deque */
	grow(&g, n);
	m.build(n);
	std::printf("%g %zu %zu %zu %zu %zu %zu %zu %zu\n", sum_id(cloud, 4), parts.size(),
		    init.size(), copy.size(), more.size(), s.size(), byid.size(), dq.size(),
		    flags.size() + g.edges.size() + m.edges.size() + m.cells.size());
	return 0;
}
