package io.backpressure.core;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScratchTest {
  @Test
  void flood() {
    Policy policy = Policy.builder("test/model")
        .dimension(Dimension.REQUESTS, 60, 60)
        .priority("P1", 0.5).priority("P2", 0.3).priority("P3", 0.2)
        .build();
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.create(policy, clock);
    Traffic traffic = new Traffic(gate, clock)
        .openLoop("flood", "P3", Cost.oneRequest(), 150, 0.1, 0, 60, null, 5)
        .openLoop("light", "P3", Cost.oneRequest(), 2, 0.1, 0, 60, null, 6);
    for (int t = 0; t < 4; t++) {
      traffic.openLoop("interactive" + t, "P1", Cost.oneRequest(), 4, 0.1, 0, 60, null, 7 + t);
    }
    for (int s = 1; s <= 60; s += 5) {
      List<Traffic.Admitted> log = traffic.runUntil(s);
      double all = Traffic.sum(log, s - 5, s, Dimension.REQUESTS, a -> true, false) / 5;
      double p3 = Traffic.sum(log, s - 5, s, Dimension.REQUESTS, a -> a.priority().equals("P3"), false) / 5;
      System.out.println("t=" + s + " all=" + all + " p3=" + p3 + " " + gate.levels() + " flood=" + gate.queueState("flood", "P3"));
    }
    long bad = traffic.outcomes().stream().filter(o -> !o.tenant().equals("flood") && o.waitNanos() > 16_666_666).count();
    System.out.println("late light calls " + bad + " of " + traffic.outcomes().stream().filter(o -> !o.tenant().equals("flood")).count());
    traffic.outcomes().stream().filter(o -> !o.tenant().equals("flood") && o.waitNanos() > 16_666_666).limit(25).forEach(System.out::println);
  }

  @Test
  void weights() {
    Policy.Builder builder = Policy.builder("test/model").dimension(Dimension.REQUESTS, 60, 60).priority("P1", 1);
    int[] weights = {1, 2, 4};
    for (int i = 0; i < 120; i++) {
      builder.tenantWeight("t" + i, weights[i % 3]);
    }
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.create(builder.build(), clock);
    Traffic traffic = new Traffic(gate, clock);
    for (int i = 0; i < 120; i++) {
      traffic.callers("t" + i, "P1", Cost.oneRequest(), Cost.oneRequest(), 1, 0.1, 0, Double.POSITIVE_INFINITY);
    }
    List<Traffic.Admitted> log = traffic.runUntil(150);
    double[] byWeight = new double[5];
    for (int i = 0; i < 120; i++) {
      String tenant = "t" + i;
      byWeight[weights[i % 3]] += Traffic.sum(log, 10, 150, Dimension.REQUESTS, a -> a.tenant().equals(tenant), false) / 140 / 40;
    }
    System.out.println("W rates w1=" + byWeight[1] + " w2=" + byWeight[2] + " w4=" + byWeight[4] + " defer/ok=" + (double) traffic.deferrals() / log.size());
    System.out.println("W " + gate.queueState("t0", "P1") + " " + gate.queueState("t2", "P1"));
  }

  @Test
  void many() {
    Policy.Builder builder = Policy.builder("test/model").dimension(Dimension.REQUESTS, 60, 60)
        .priority("P1", 0.6).priority("P2", 0.4);
    double[] entitlement = new double[200];
    double total = 0;
    for (int i = 0; i < 200; i++) {
      double w = i >= 40 && i % 4 == 3 ? 3 : 1;
      builder.tenantWeight("t" + i, w);
      entitlement[i] = w * (i < 40 ? 0.6 : 0.4);
      total += entitlement[i];
    }
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.create(builder.build(), clock);
    Traffic traffic = new Traffic(gate, clock);
    for (int i = 0; i < 200; i++) {
      traffic.callers("t" + i, i < 40 ? "P1" : "P2", Cost.oneRequest(), Cost.oneRequest(), 1, 0.1, 0, Double.POSITIVE_INFINITY);
    }
    List<Traffic.Admitted> log = traffic.runUntil(150);
    double[] g = new double[3];
    int[] n = new int[3];
    for (int i = 0; i < 200; i++) {
      String tenant = "t" + i;
      double rate = Traffic.sum(log, 10, 150, Dimension.REQUESTS, a -> a.tenant().equals(tenant), false) / 140;
      int grp = i < 40 ? 0 : (i % 4 == 3 ? 2 : 1);
      g[grp] += rate / (60 * entitlement[i] / total);
      n[grp]++;
    }
    System.out.println("M P1=" + g[0] / n[0] + " P2w1=" + g[1] / n[1] + " P2w3=" + g[2] / n[2] + " " + gate.levels());
  }
}
