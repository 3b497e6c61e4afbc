// Push-pull averaging (PeerSim's event-driven averaging example) on SimGrid's S4U API,
// for a side-by-side comparison with mmvesim's `averaging` experiment
// (experiments/src/exp/averaging.rs). The workload is the same, event for event:
//
//  * N nodes, each with K distinct random out-links (not itself), values uniform in
//    [0, 100);
//  * every node has a periodic timer of period 1 s, first tick uniform in [0, 1 s);
//  * at a tick a node sends its value to one random out-neighbour (a push); the
//    neighbour answers with its own value (a reply) and both hold the average;
//  * zero network delay, CYCLES cycles: exactly 3 events per node per cycle (tick,
//    push delivery, reply delivery).
//
// Idiomatic S4U: one actor per node on one host, one mailbox per node with a pending
// asynchronous receive, `Comm::wait_any_for` with the time left to the next tick as the
// timer, detached zero-byte sends (the loopback link has zero latency). An observer actor
// prints mean and variance after every cycle, as mmvesim does.
//
//   averaging NODES [CYCLES=100] [DEGREE=20] [SEED=1] [--cfg=...]
//
// Prints `events <n>` (counted, must be 3 × NODES × CYCLES), the final mean/variance
// and the wall time of the simulation alone (set-up excluded) on stdout.

#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Msg {
  uint32_t from;
  bool reply;
  double value;
};

struct State {
  std::vector<double> values;
  std::vector<uint32_t> links;  // DEGREE per node
  std::vector<sg4::Mailbox*> boxes;
  uint64_t events = 0;
  uint32_t degree = 20;
  uint32_t cycles = 100;
  double period = 1.0;
};

State st;

// SplitMix64: a small, well-mixed stream per (seed, node, purpose).
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void node(uint32_t id, uint64_t seed) {
  std::mt19937_64 rng(splitmix(seed ^ splitmix(id * 3 + 2)));
  std::uniform_real_distribution<double> start(0.0, st.period);
  std::uniform_int_distribution<uint32_t> pick(0, st.degree - 1);
  double next = start(rng);
  const double end = st.period * st.cycles;
  sg4::Mailbox* mine = st.boxes[id];
  Msg* in = nullptr;
  std::vector<sg4::CommPtr> pending{mine->get_async<Msg>(&in)};
  for (;;) {
    const double now = sg4::Engine::get_clock();
    ssize_t got = sg4::Comm::wait_any_for(pending, next - now);
    if (got < 0) {  // the timer
      if (next >= end)
        continue;  // no tick at or after the end; keep serving pushes until the run stops
      st.events++;
      uint32_t to = st.links[static_cast<size_t>(id) * st.degree + pick(rng)];
      st.boxes[to]->put_init(new Msg{id, false, st.values[id]}, 0)->detach();
      next += st.period;
      if (next >= end)
        next = end + st.period;  // sleep past the end
      continue;
    }
    st.events++;
    Msg* m = in;
    if (m->reply) {
      st.values[id] = (st.values[id] + m->value) / 2.0;
    } else {
      st.boxes[m->from]->put_init(new Msg{id, true, st.values[id]}, 0)->detach();
      st.values[id] = (st.values[id] + m->value) / 2.0;
    }
    delete m;
    pending[0] = mine->get_async<Msg>(&in);
  }
}

void stats(double* mean, double* var) {
  double n = static_cast<double>(st.values.size());
  double s = 0;
  for (double v : st.values)
    s += v;
  *mean = s / n;
  double q = 0;
  for (double v : st.values)
    q += (v - *mean) * (v - *mean);
  *var = q / n;
}

void observer(bool verbose) {
  for (uint32_t c = 1; c <= st.cycles; c++) {
    sg4::this_actor::sleep_until(st.period * c - 1e-9);
    double m, v;
    stats(&m, &v);
    if (verbose)
      std::printf("cycle %u mean %.17g variance %.6g events %llu\n", c, m, v,
                  static_cast<unsigned long long>(st.events));
  }
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);  // consumes --cfg=... options
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NODES [CYCLES] [DEGREE] [SEED] [--cfg=...]\n", argv[0]);
    return 2;
  }
  const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  st.cycles = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 100;
  st.degree = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 20;
  const uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
  const bool verbose = std::getenv("AVERAGING_VERBOSE") != nullptr;
  if (n < 2 || st.degree < 1 || st.degree >= n || st.cycles < 1) {
    std::fprintf(stderr, "need NODES >= 2, 1 <= DEGREE < NODES, CYCLES >= 1\n");
    return 2;
  }

  auto* zone = sg4::create_full_zone("world");
  sg4::Host* host = zone->create_host("host", 1e9);
  zone->seal();

  // Overlay and initial values, as in mmvesim: K distinct random out-links per node.
  st.values.resize(n);
  st.links.resize(static_cast<size_t>(n) * st.degree);
  st.boxes.resize(n);
  for (uint32_t i = 0; i < n; i++) {
    std::mt19937_64 rng(splitmix(seed ^ splitmix(i * 3ULL)));
    std::uniform_int_distribution<uint32_t> any(0, n - 1);
    size_t base = static_cast<size_t>(i) * st.degree;
    for (uint32_t k = 0; k < st.degree;) {
      uint32_t j = any(rng);
      bool dup = j == i;
      for (uint32_t q = 0; q < k && !dup; q++)
        dup = st.links[base + q] == j;
      if (!dup)
        st.links[base + k++] = j;
    }
    std::mt19937_64 init(splitmix(seed ^ splitmix(i * 3ULL + 1)));
    st.values[i] = std::uniform_real_distribution<double>(0.0, 100.0)(init);
    st.boxes[i] = sg4::Mailbox::by_name("n" + std::to_string(i));
  }
  double m0, v0;
  stats(&m0, &v0);
  for (uint32_t i = 0; i < n; i++)
    sg4::Actor::create("n" + std::to_string(i), host, node, i, seed);
  sg4::Actor::create("observer", host, observer, verbose);

  auto t0 = std::chrono::steady_clock::now();
  e.run_until(st.period * st.cycles);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double m, v;
  stats(&m, &v);
  std::printf("nodes %u cycles %u degree %u\n", n, st.cycles, st.degree);
  std::printf("events %llu (expected %llu)\n", static_cast<unsigned long long>(st.events),
              3ULL * n * st.cycles);
  std::printf("mean %.17g -> %.17g, variance %.6g -> %.6g\n", m0, m, v0, v);
  std::printf("simulation wall %.3f s, %.3f M events/s\n", wall, st.events / wall / 1e6);
  std::fflush(stdout);
  // Like PeerSim, leave without tearing down a million actors.
  std::_Exit(st.events == 3ULL * n * st.cycles ? 0 : 1);
}
