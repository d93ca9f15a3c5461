package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.spi.DerivedPolicy;
import io.backpressure.core.spi.EffectiveCaps;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The twins cannot drift: random traces of provider answers (successes with rate-limit headers,
 * 429s naming a dimension or none, stops, overloads, 5xx bursts, resumes, hot updates) go to the
 * Java state machine and to feedback.lua, and what each remembers is compared after every step.
 */
class FeedbackDifferentialTest {
  private static final List<String> DIMS = List.of("requests", "tokens");

  @Test
  void javaAndLuaLearnTheSameFromTheSameAnswers() {
    for (int trace = 0; trace < 12; trace++) {
      replay(new Random(trace), trace);
    }
  }

  private static void replay(Random random, int trace) {
    FeedbackPolicy feedback =
        FeedbackPolicy.builder()
            .period(Duration.ofMillis(500 + random.nextInt(60_000)))
            .decrease(0.5 + 0.4 * random.nextDouble())
            .increase(0.01 + 0.2 * random.nextDouble())
            .headroom(0.1 * random.nextDouble())
            .outageErrors(1 + random.nextInt(5))
            .ramp(0.1 + 0.9 * random.nextDouble(), Duration.ofMillis(100 + random.nextInt(20_000)))
            .build();
    Policy policy =
        Policy.builder("diff/" + trace)
            .requestsPerSecond(10 + random.nextInt(100))
            .tokensPerSecond(1_000 + random.nextInt(20_000))
            .priority("P1", 1)
            .feedback(feedback)
            .build();
    ManualClock clock = new ManualClock(1_000_000_000L * (1 + random.nextInt(1_000)));
    RedisGate redis = TestRedis.shared().gate(policy, TimeSource.caller(clock));
    EffectiveCaps java = new EffectiveCaps(DIMS, caps(policy), feedback);
    double period = feedback.period().toNanos() / 1e9;

    for (int step = 0; step < 250; step++) {
      clock.advance(Duration.ofNanos(1_000L * random.nextInt(300_000)));
      if (random.nextInt(100) == 0) {
        policy =
            policy.withDimension(
                new io.backpressure.core.Dimension("requests", 10 + random.nextInt(100), 20));
        if (random.nextBoolean()) {
          feedback =
              feedback.toBuilder().period(Duration.ofMillis(500 + random.nextInt(60_000))).build();
          policy = policy.withFeedback(feedback);
          period = feedback.period().toNanos() / 1e9;
        }
        redis.policyStore().apply(policy);
        java.reconfigure(caps(policy), feedback);
      }
      ProviderSignal signal = signal(random, policy, period);
      long now = clock.nanoTime() / 1_000;
      java.observe(now, signal, EffectiveCaps.ownUse(DIMS, null, signal));
      redis.feedback(null, signal);
      assertSame(
          java.state(now), redis.feedbackState().orElseThrow(), "trace " + trace + " step " + step);
    }
  }

  /**
   * The seam: after an answer, the parameters the scripts decide with equal the derived numbers of
   * the policy the in-memory gate decides with ({@link EffectiveCaps#rulePolicy}), here for limits
   * that scale a small cap's burst below one request, or leave less than one request per safe
   * window, which both twins clamp to one request.
   *
   * <p>Mutation tried: feedback.lua without the burst clamp (a burst of 0.5), and without the rate
   * clamp (an allowance of 0.5).
   */
  @Test
  void javaAndLuaDecideWithTheSameClampedParameters() {
    Connection connection = TestRedis.shared().connection();
    Script probe = Script.load("nested_buckets.lua", "params_probe.lua");
    for (long windowMillis : new long[] {0, 1_000, 333, 7_001}) {
      for (double limit : new double[] {0, 1, 3, 40}) {
        FeedbackPolicy feedback = FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build();
        Policy policy =
            Policy.builder("clamp/" + windowMillis + "/" + limit)
                .tokensPerSecond(2_000)
                .requestsPerSecond(10)
                .safeWindow(windowMillis == 0 ? null : Duration.ofMillis(windowMillis))
                .priority("P1", 1)
                .feedback(feedback)
                .build();
        ManualClock clock = new ManualClock(1_000_000_000L);
        RedisGateConfig config =
            TestRedis.shared()
                .config()
                .target(policy.target())
                .policy(policy)
                .timeSource(TimeSource.caller(clock))
                .build();
        RedisGate redis = RedisGate.over(connection, false, config);
        List<String> names = policy.dimensionNames();
        double[] caps = {2_000, 10};
        EffectiveCaps java = new EffectiveCaps(names, caps, feedback);
        ProviderSignal signal =
            ProviderSignal.ofStatus(200)
                .withLimit("requests", limit, null, null)
                .withLimit("tokens", 100.0, null, null);
        long now = clock.nanoTime() / 1_000;
        java.observe(now, signal, null);
        redis.feedback(null, signal);
        InMemoryGate.create(policy, clock).feedback(null, signal);

        DerivedPolicy expected =
            DerivedPolicy.of(EffectiveCaps.rulePolicy(policy, java.applied(now)));
        Keys keys = Keys.of(config.keyPrefix(), config.target());
        List<Object> reply = connection.await(connection.run(probe, new String[] {keys.config()}));
        String where = "window " + windowMillis + " ms, limit " + limit;
        assertThat(expected.burst(1)).as(where + ": one request fits").isGreaterThanOrEqualTo(1);
        for (int d = 0; d < 2; d++) {
          int at = 2 + 4 * d;
          double[] want = {
            expected.rate(d), expected.burst(d), expected.largest(d), expected.allowance(d)
          };
          for (int i = 0; i < 4; i++) {
            double read = Double.parseDouble((String) reply.get(at + i));
            assertThat(read)
                .as(
                    where
                        + " "
                        + names.get(d)
                        + " "
                        + List.of("rate", "burst", "largest", "allowance").get(i))
                .isCloseTo(want[i], within(1e-12 * Math.max(1, want[i])));
          }
        }
      }
    }
  }

  private static ProviderSignal signal(Random random, Policy policy, double period) {
    int roll = random.nextInt(100);
    if (roll < 3) {
      return ProviderSignal.resumedAfterOutage();
    }
    if (roll < 12) {
      return ProviderSignal.ofStatus(
          List.of(503, 0, ProviderSignal.OVERLOADED).get(random.nextInt(3)));
    }
    int status = roll < 30 ? 429 : 200;
    Set<String> exhausted = new HashSet<>();
    if (status == 429 && random.nextBoolean()) {
      exhausted.add(DIMS.get(random.nextInt(2)));
    }
    Duration retryAfter = random.nextInt(3) == 0 ? Duration.ofMillis(random.nextInt(3_000)) : null;
    ProviderSignal signal =
        new ProviderSignal(
            status,
            exhausted,
            Map.of(),
            retryAfter,
            Cost.requests(1).tokens(random.nextInt(500)),
            random.nextInt(3) == 0 ? 1 : 0,
            false,
            status == 429 && random.nextInt(5) == 0
                ? ProviderSignal.Meaning.STOP_UNTIL_RESET
                : ProviderSignal.Meaning.ofStatus(status));
    for (int d = 0; d < DIMS.size(); d++) {
      if (random.nextInt(4) == 0) {
        continue;
      }
      double cap = policy.dimensions().get(d).capPerSecond() * period;
      Double limit = random.nextInt(5) == 0 ? null : Math.floor(cap * (0.3 + random.nextDouble()));
      Double remaining =
          random.nextInt(5) == 0 || limit == null ? null : Math.floor(limit * random.nextDouble());
      Duration reset =
          random.nextInt(5) == 0
              ? null
              : Duration.ofNanos((long) (random.nextDouble() * period * 1.2e9));
      signal = signal.withLimit(DIMS.get(d), limit, remaining, reset);
    }
    return signal;
  }

  private static void assertSame(FeedbackState java, FeedbackState lua, String where) {
    assertThat(lua.signals()).as(where).isEqualTo(java.signals());
    assertThat(lua.decreases()).as(where).isEqualTo(java.decreases());
    assertThat(lua.adoptions()).as(where).isEqualTo(java.adoptions());
    assertThat(lua.ramps()).as(where).isEqualTo(java.ramps());
    assertThat(lua.ignored()).as(where).isEqualTo(java.ignored());
    assertThat(lua.outage()).as(where).isEqualTo(java.outage());
    assertThat(lua.rampMultiplier()).as(where).isCloseTo(java.rampMultiplier(), within(1e-12));
    for (String dim : DIMS) {
      FeedbackState.Dimension j = java.dimensions().get(dim);
      FeedbackState.Dimension l = lua.dimensions().get(dim);
      String at = where + " " + dim;
      assertThat(l.configured()).as(at).isEqualTo(j.configured());
      assertThat(l.effective())
          .as(at + " effective")
          .isCloseTo(j.effective(), within(1e-9 * j.configured()));
      assertThat(l.applied())
          .as(at + " applied")
          .isCloseTo(j.applied(), within(1e-9 * j.configured()));
      if (Double.isNaN(j.limit())) {
        assertThat(l.limit()).as(at + " limit").isNaN();
      } else {
        assertThat(l.limit()).as(at + " limit").isEqualTo(j.limit());
      }
      assertThat(l.outside())
          .as(at + " outside")
          .isCloseTo(j.outside(), within(1e-9 * j.configured()));
      assertThat(l.cooldownSeconds())
          .as(at + " cooldown")
          .isCloseTo(j.cooldownSeconds(), within(1e-9));
      assertThat(l.spentSeconds()).as(at + " spent").isCloseTo(j.spentSeconds(), within(1e-9));
    }
  }

  private static double[] caps(Policy policy) {
    return new double[] {
      policy.dimensions().get(0).capPerSecond(), policy.dimensions().get(1).capPerSecond()
    };
  }
}
