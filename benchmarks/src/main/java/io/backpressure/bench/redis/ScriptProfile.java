package io.backpressure.bench.redis;

import io.backpressure.admin.RedisTlsOptions;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.redis.RedisGate;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where the admission script spends its server time, phase by phase, on one standalone server
 * ({@code bench redis --profile REPS}). Two views, measured on the same target:
 *
 * <ul>
 *   <li>whole calls, from {@code INFO commandstats} (wall clock) and {@code INFO cpu} (the server's
 *       CPU) over sequential calls: the admission as the gate runs it where the server has
 *       functions ({@code FCALL}) and as one script ({@code EVALSHA}, on a cluster or an older
 *       server), interleaved; a script that returns at once with an admission's keys and arguments
 *       (what Redis spends on any {@code EVALSHA}); and the admission's functions defined with
 *       nothing run (what every {@code EVALSHA} of it pays, and a function does not);
 *   <li>the phases of one admission, each repeated {@code REPS} times inside one call of {@code
 *       profile.lua} and timed with {@code TIME} around the fastest of ten blocks (a Lua-side
 *       timer; Redis's Lua has no other clock), less the empty loop.
 * </ul>
 *
 * The phase script is the gate's own {@code nested_buckets.lua} and the functions of {@code
 * admit.lua} (its text up to its main body), read from the redis module's resources, so it times
 * the code the gate runs. Not thread-safe; one run at a time per target.
 */
final class ScriptProfile {
  /** Where admit.lua's main body starts: the functions end above this line. */
  private static final String MAIN_BODY = "local config, live = load_config(";

  private static final int CALLS = 2_000;

  private final RedisCommands<String, String> redis;

  private ScriptProfile(RedisCommands<String, String> redis) {
    this.redis = redis;
  }

  /**
   * Profiles {@code gate}'s target, whose queues must be active (the load generator populates
   * them).
   */
  static void run(String url, RedisTlsOptions tls, RedisGate gate, int tenants, int reps) {
    RedisClient client = RedisClient.create(url);
    client.setOptions(ClientOptions.builder().sslOptions(tls.sslOptions()).build());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      new ScriptProfile(connection.sync()).print(gate, tenants, reps);
    } finally {
      client.shutdown();
    }
  }

  private void print(RedisGate gate, int tenants, int reps) {
    // The keys and arguments of an admission of tenant-0 in class P1 (see admit.lua and the key
    // table in redis/README.md).
    String base = "bp:{" + gate.target() + "}:";
    String[] keys = {
      base + "config",
      base + "state",
      base + "queues",
      base + "seen",
      base + "window",
      base + "g:profile",
      base + "b:profile",
      base + "w:0"
    };
    String version = redis.hget(base + "config", "version");
    String[] args = {version, "", "tenant-0", "0", "1.0", "0", "0", "-1", "1.0", "100.0"};
    String functions = prefix(resource("/io/backpressure/redis/admit.lua"));
    String buckets = resource("/io/backpressure/redis/nested_buckets.lua");

    double bare = wholeCall("return 1", keys, args);
    double prelude = wholeCall(buckets + "\n" + functions + "\nreturn 1", keys, args);
    // The same admission as a function (the gate's FCALL, where the server has functions) and as
    // one script (EVALSHA, as on a cluster or an older server), interleaved so both see the same
    // load.
    String script =
        buckets
            + "\n"
            + resource("/io/backpressure/redis/guards.lua")
            + "\n"
            + resource("/io/backpressure/redis/admit.lua")
            + "\n";
    String sha = redis.scriptLoad(script);
    String[] withGiveUp = java.util.Arrays.copyOf(args, args.length + 1);
    withGiveUp[args.length] = "";
    AdmissionRequest request = AdmissionRequest.of("tenant-0", "P1", Cost.requests(1).tokens(100));
    redis.configResetstat();
    double functionCpu = 0;
    double evalshaCpu = 0;
    for (int round = 0; round < 10; round++) {
      double start = cpuMicros();
      for (int i = 0; i < CALLS / 10; i++) {
        gate.admit(request);
      }
      double middle = cpuMicros();
      for (int i = 0; i < CALLS / 10; i++) {
        redis.evalsha(sha, ScriptOutputType.MULTI, keys, withGiveUp);
      }
      functionCpu += middle - start;
      evalshaCpu += cpuMicros() - middle;
    }
    double function = usecPerCall("fcall");
    double evalsha = usecPerCall("evalsha");

    String[] withReps = java.util.Arrays.copyOf(args, args.length + 1);
    withReps[args.length] = Integer.toString(reps);
    String profile =
        buckets + "\n" + functions + "\n" + resource("/io/backpressure/bench/redis/profile.lua");
    List<Object> phases = redis.eval(profile, ScriptOutputType.MULTI, keys, withReps);

    System.out.printf(
        "%nScript profile, %d tenant%s active, %d repetitions per phase (µs of server time per call)%n",
        tenants, tenants == 1 ? "" : "s", reps);
    System.out.printf("  %-56s %8.1f%n", "whole admission by FCALL (INFO commandstats)", function);
    System.out.printf("  %-56s %8.1f%n", "  server CPU per call (INFO cpu)", functionCpu / CALLS);
    System.out.printf("  %-56s %8.1f%n", "whole admission by EVALSHA (INFO commandstats)", evalsha);
    System.out.printf("  %-56s %8.1f%n", "  server CPU per call (INFO cpu)", evalshaCpu / CALLS);
    System.out.printf("  %-56s %8.1f%n", "  any EVALSHA with these keys and arguments", bare);
    System.out.printf(
        "  %-56s %8.1f%n", "  the script's functions defined (EVALSHA only)", prelude - bare);
    double sum = 0;
    for (int i = 0; i < phases.size(); i += 2) {
      double micros = Double.parseDouble((String) phases.get(i + 1));
      System.out.printf("  %-56s %8.1f%n", "  " + phases.get(i), micros);
      if (!((String) phases.get(i)).startsWith(" ")) {
        sum += micros;
      }
    }
    System.out.printf("  %-56s %8.1f%n", "  sum of the phases (unindented)", sum);
  }

  /**
   * {@code INFO commandstats}' µs per call of {@code script}, run {@link #CALLS} times by EVALSHA.
   */
  private double wholeCall(String script, String[] keys, String[] args) {
    String sha = redis.scriptLoad(script);
    redis.configResetstat();
    for (int i = 0; i < CALLS; i++) {
      redis.evalsha(sha, ScriptOutputType.MULTI, keys, args);
    }
    return usecPerCall("evalsha");
  }

  /** The CPU time (µs) of the server's main thread so far, user and system (INFO cpu). */
  private double cpuMicros() {
    double seconds = 0;
    for (String line : redis.info("cpu").split("\\r?\\n")) {
      if (line.startsWith("used_cpu_sys_main_thread:")
          || line.startsWith("used_cpu_user_main_thread:")) {
        seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return seconds * 1e6;
  }

  private double usecPerCall(String command) {
    for (String line : redis.info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        int at = line.indexOf("usec_per_call=");
        int end = line.indexOf(',', at);
        return Double.parseDouble(line.substring(at + 14, end));
      }
    }
    return Double.NaN;
  }

  private static String prefix(String admit) {
    int at = admit.indexOf(MAIN_BODY);
    if (at < 0) {
      throw new IllegalStateException(
          "admit.lua has no line '" + MAIN_BODY + "'; update ScriptProfile");
    }
    return admit.substring(0, at);
  }

  private static String resource(String name) {
    try (InputStream in = ScriptProfile.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
