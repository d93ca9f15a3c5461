package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityMode;
import io.backpressure.core.spi.DerivedPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scripts decide with exactly the numbers of {@link DerivedPolicy}: the parameters a policy
 * write stores, as {@code decode_params} in nested_buckets.lua reads them back, equal the derived
 * ones bit for bit, and the struct formats apply.lua stores are sized by the layout every step
 * reads the state with.
 */
class DerivedParamsTest {
  private static final Script PROBE = Script.load("nested_buckets.lua", "params_probe.lua");
  private static final List<String> DIMENSIONS = List.of("requests", "tokens", "images");

  @ParameterizedTest(name = "{0} dimensions, {1} classes, safe window {2} ms, strict {3}")
  @CsvSource({"1, 1, 0, false", "2, 3, 1000, false", "2, 4, 0, true", "3, 2, 60000, true"})
  void theScriptsReadBackEveryDerivedNumber(
      int dims, int classes, long windowMillis, boolean strict) {
    Policy policy = policy(dims, classes, windowMillis, strict);
    DerivedPolicy derived = DerivedPolicy.of(policy);
    RedisGateConfig config =
        TestRedis.shared()
            .config()
            .target("params/d" + dims + "k" + classes)
            .policy(policy)
            .timeSource(TimeSource.caller(new ManualClock(1_000_000_000L)))
            .build();
    Connection connection = TestRedis.shared().connection();
    RedisGate gate = RedisGate.over(connection, false, config);
    Keys keys = Keys.of(config.keyPrefix(), config.target());

    List<Double> expected = new ArrayList<>();
    expected.add((double) dims);
    expected.add((double) classes);
    for (int d = 0; d < dims; d++) {
      expected.add(derived.rate(d));
      expected.add(derived.burst(d));
      expected.add(derived.largest(d));
      expected.add(derived.allowance(d));
    }
    for (int k = 0; k < classes; k++) {
      expected.add(derived.classWeight(k));
    }
    expected.add(derived.horizonSeconds());
    expected.add((double) derived.horizonMicros());
    expected.add((double) derived.idleTtlMicros());
    expected.add((double) derived.grantTtlMicros());
    expected.add((double) derived.grantTtlMillis());
    expected.add((double) derived.safeWindowMicros());
    expected.add(derived.strict() ? 1.0 : 0.0);

    List<Object> reply = connection.await(connection.run(PROBE, new String[] {keys.config()}));
    List<Double> read = new ArrayList<>();
    for (Object value : reply.subList(0, expected.size())) {
      // %.17g: every double reads back to itself.
      read.add(Double.parseDouble((String) value));
    }
    assertThat(read).as("parameters as decode_params reads them").isEqualTo(expected);

    int stateSize = Integer.parseInt((String) reply.get(expected.size()));
    int queueSize = Integer.parseInt((String) reply.get(expected.size() + 1));
    assertThat(reply.subList(expected.size() + 2, reply.size()))
        .as("doubles in the state, queue, window meta and window entry formats")
        .containsExactly(
            Integer.toString(stateSize),
            Integer.toString(queueSize),
            Integer.toString(2 + dims),
            Integer.toString(1 + dims));

    // A step writes the state in that layout, and reads it back (a state of another size would
    // make every step start cold).
    assertThat(gate.admit("a", "P0", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    long stored =
        connection.await(connection.commands().strlen(keys.state()).toCompletableFuture());
    assertThat(stored).isEqualTo(8L * stateSize);
    assertThat(gate.policyStore().levels().orElseThrow().activeQueues().get("P0")).isEqualTo(1);
  }

  private static Policy policy(int dims, int classes, long windowMillis, boolean strict) {
    Policy.Builder builder = Policy.builder("params/d" + dims + "k" + classes);
    for (int d = 0; d < dims; d++) {
      // Rates whose allowances and largest costs are not round numbers.
      builder.dimension(DIMENSIONS.get(d), 7.3 * (d + 1) + 0.1, 11.7 * (d + 1));
    }
    for (int k = 0; k < classes; k++) {
      builder.priority("P" + k, 1.0 / (k + 3));
    }
    return builder
        .shareHorizon(Duration.ofMillis(1_234))
        .idleTtl(Duration.ofMillis(9_876))
        .grantTtl(Duration.ofNanos(61_000_000_001L))
        .safeWindow(windowMillis == 0 ? null : Duration.ofMillis(windowMillis))
        .priorityMode(strict ? PriorityMode.STRICT : PriorityMode.SHARED)
        .build();
  }
}
