package io.backpressure.redis;

import io.backpressure.core.FairRuleSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One Lua script: its text (the resources named, concatenated) and its SHA-1, which is how Redis
 * names it in {@code EVALSHA}; for the admission and release steps also the name of the same step
 * in the function {@link #LIBRARY} ({@code FCALL}, Redis 7 and Valkey), else null.
 */
record Script(String text, String sha, @Nullable String function) {

  /** Where a step's main body starts (admit.lua, release.lua): its functions end above it. */
  static final String MAIN_BODY = "local config, live = load_config(";

  /** The shared bucket arithmetic every step starts with. */
  static final String BUCKETS = "nested_buckets.lua";

  /** The limits' functions, which the admission and release steps call (limits.lua). */
  static final String LIMITS = "limits.lua";

  /**
   * The function library's code, without the lines that register its functions; its digest names
   * the library and both its functions, so that a library of another version, even one whose
   * release step is the same text, never holds a function of the same name (Redis refuses to load a
   * library that would register a function another library has).
   */
  private static final String LIBRARY_CODE = libraryCode();

  private static final String LIBRARY_DIGEST = sha1(LIBRARY_CODE).substring(0, 16);

  /** The admission step: the shared bucket arithmetic, the guards, the limits, then admit.lua. */
  static final Script ADMIT = step("admit", "guards.lua", LIMITS, "admit.lua");

  /** The release step: the shared bucket arithmetic, the guards, the limits, then release.lua. */
  static final Script RELEASE = step("release", "guards.lua", LIMITS, "release.lua");

  /**
   * Charges L1 with what was admitted without the state (a fail-open hand-back): the shared bucket
   * arithmetic, the guards, then charge.lua. Run with {@code EVALSHA} (it is not in the library).
   */
  static final Script CHARGE = load(BUCKETS, "guards.lua", "charge.lua");

  /** Writes a policy and its packed parameters: the shared bucket arithmetic, then apply.lua. */
  static final Script APPLY = load(BUCKETS, "apply.lua");

  /**
   * Reads or resets one quota counter: the shared bucket arithmetic, the limits' functions, then
   * quota.lua.
   */
  static final Script QUOTA = stateRead("quota", BUCKETS, LIMITS, "quota.lua");

  /**
   * Decreases an adaptive concurrency limit on an overload answer: the shared bucket arithmetic,
   * the limits' functions, then overload.lua. Run with {@code EVALSHA} (it is not in the library).
   */
  static final Script OVERLOAD = load(BUCKETS, LIMITS, "overload.lua");

  /**
   * Resets an adaptive concurrency limit to its min, audited in the same step: the shared bucket
   * arithmetic, the limits' functions, then adaptive_reset.lua.
   */
  static final Script ADAPTIVE_RESET = load(BUCKETS, LIMITS, "adaptive_reset.lua");

  /**
   * The rebuilt rule's state schema and its twin ({@code FairRuleSchema.lua()} and fair_rule.lua),
   * after the shared parameters, config, time and ramp functions of the bucket arithmetic.
   */
  private static final String FAIR_RULE =
      read(BUCKETS) + FairRuleSchema.lua() + read("fair_rule.lua");

  /**
   * An admission with the rebuilt rule ({@code RedisGateConfig.fairQueuing}): the rule, the guards,
   * the limits, then fair_admit.lua; in the library as well.
   */
  static final Script FAIR_ADMIT = fairStep("fair_admit", "guards.lua", LIMITS, "fair_admit.lua");

  /** A release with the rebuilt rule: the rule, the guards, the limits, then fair_release.lua. */
  static final Script FAIR_RELEASE =
      fairStep("fair_release", "guards.lua", LIMITS, "fair_release.lua");

  /** A hand-back with the rebuilt rule: the rule, the guards, then fair_charge.lua. */
  static final Script FAIR_CHARGE = fair("guards.lua", "fair_charge.lua");

  /** What feedback.lua learned, applied to the rebuilt rule's state: fair_feedback.lua. */
  static final Script FAIR_FEEDBACK = fair("fair_feedback.lua");

  /**
   * The rebuilt rule's whole state, read by its schema's names: the rule, then fair_state.lua; in
   * the library as well.
   */
  static final Script FAIR_STATE = fairRead("fair_state", "fair_state.lua");

  /**
   * The rebuilt rule's levels, in the shape of {@link #LEVELS}'s: the rule, then fair_levels.lua;
   * in the library as well.
   */
  static final Script FAIR_LEVELS = fairRead("fair_levels", "fair_levels.lua");

  /**
   * One queue of the rebuilt rule, in the shape of {@link #QUEUE}'s: the rule, then fair_queue.lua;
   * in the library as well.
   */
  static final Script FAIR_QUEUE = fairRead("fair_queue", "fair_queue.lua");

  /** One worker's heartbeat; answers the number of live workers. */
  static final Script ALIVE = load("alive.lua");

  /**
   * Reads the bucket levels: the shared bucket arithmetic, then levels.lua; in the library as well.
   */
  static final Script LEVELS = stateRead("levels", BUCKETS, "levels.lua");

  /**
   * Reads one queue's L3 bucket: the shared bucket arithmetic, then queue.lua; in the library as
   * well.
   */
  static final Script QUEUE = stateRead("queue", BUCKETS, "queue.lua");

  /**
   * The admission and release steps, of both rules, and the reads of their state (levels, a queue,
   * a quota counter), as one Redis function library, named by a digest of its text so that clients
   * of different versions load theirs side by side. An {@code EVALSHA} runs its whole script at
   * every call: it defines every function of nested_buckets.lua again and decodes the policy's
   * parameters. The library runs nested_buckets.lua and the steps' functions once, at the first
   * call after it is loaded (Redis's standard libraries are not there while a library loads), and
   * keeps those functions, the tables they reuse and the parameters they decoded between calls;
   * each call starts with {@code begin_call} (guards.lua), so no state of a call survives into the
   * next.
   */
  static final String LIBRARY =
      library(
          ADMIT,
          RELEASE,
          FAIR_ADMIT,
          FAIR_RELEASE,
          LEVELS,
          QUEUE,
          QUOTA,
          FAIR_LEVELS,
          FAIR_QUEUE,
          FAIR_STATE);

  /** A step of the rebuilt rule, also in the library under a name made by its digest. */
  private static Script fairStep(String name, String... resources) {
    String text = FAIR_RULE + read(resources);
    return new Script(text, sha1(text), "backpressure_" + name + "_" + LIBRARY_DIGEST);
  }

  /** A read of the rebuilt rule's state, also in the library under a name made by its digest. */
  private static Script fairRead(String name, String resource) {
    String text = FAIR_RULE + read(resource);
    return new Script(text, sha1(text), "backpressure_" + name + "_" + LIBRARY_DIGEST);
  }

  /**
   * A read of the state: {@code resources} (the shared bucket arithmetic first), also in the
   * library under a name made by its digest.
   */
  private static Script stateRead(String name, String... resources) {
    String text = read(resources);
    return new Script(text, sha1(text), "backpressure_" + name + "_" + LIBRARY_DIGEST);
  }

  private static Script fair(String... resources) {
    String text = FAIR_RULE + read(resources);
    return new Script(text, sha1(text), null);
  }

  static Script load(String... resources) {
    String text = read(resources);
    return new Script(text, sha1(text), null);
  }

  /**
   * A step: the shared bucket arithmetic, then {@code resources}; its function in the library is
   * named by the library's digest.
   */
  private static Script step(String name, String... resources) {
    String text = read(BUCKETS) + read(resources);
    return new Script(text, sha1(text), "backpressure_" + name + "_" + LIBRARY_DIGEST);
  }

  private static String library(
      Script admit,
      Script release,
      Script fairAdmit,
      Script fairRelease,
      Script levels,
      Script queue,
      Script quota,
      Script fairLevels,
      Script fairQueue,
      Script fairState) {
    return "#!lua name=backpressure_"
        + LIBRARY_DIGEST
        + "\n"
        + LIBRARY_CODE
        + register(Objects.requireNonNull(admit.function()), "admit")
        + register(Objects.requireNonNull(release.function()), "release")
        + register(Objects.requireNonNull(fairAdmit.function()), "fair_admit")
        + register(Objects.requireNonNull(fairRelease.function()), "fair_release")
        + register(Objects.requireNonNull(levels.function()), "levels")
        + register(Objects.requireNonNull(queue.function()), "queue")
        + register(Objects.requireNonNull(quota.function()), "quota")
        + register(Objects.requireNonNull(fairLevels.function()), "fair_levels")
        + register(Objects.requireNonNull(fairQueue.function()), "fair_queue")
        + register(Objects.requireNonNull(fairState.function()), "fair_state");
  }

  private static String libraryCode() {
    String admitStep = read("admit.lua");
    String releaseStep = read("release.lua");
    String fairAdmit = read("fair_admit.lua");
    String fairRelease = read("fair_release.lua");
    String body =
        "local KEYS, ARGV\n"
            + "local steps\n"
            + "local function build()\n"
            + read(BUCKETS)
            + "IN_LIBRARY = true\n"
            + read(LIMITS)
            + functions(admitStep)
            + "local admit = function()\n"
            + read("guards.lua")
            + mainBody(admitStep)
            + "end\n"
            + functions(releaseStep)
            + "local release = function()\n"
            + read("guards.lua")
            + mainBody(releaseStep)
            + "end\n"
            + FairRuleSchema.lua()
            + read("fair_rule.lua")
            + functions(fairAdmit)
            + "local fair_admit = function()\n"
            + read("guards.lua")
            + mainBody(fairAdmit)
            + "end\n"
            + functions(fairRelease)
            + "local fair_release = function()\n"
            + read("guards.lua")
            + mainBody(fairRelease)
            + "end\n"
            + "local calls = {}\n"
            + "calls.levels = function()\n"
            + read("levels.lua")
            + "end\n"
            + "calls.queue = function()\n"
            + read("queue.lua")
            + "end\n"
            + "calls.quota = function()\n"
            + read("quota.lua")
            + "end\n"
            + "calls.fair_levels = function()\n"
            + read("fair_levels.lua")
            + "end\n"
            + "calls.fair_queue = function()\n"
            + read("fair_queue.lua")
            + "end\n"
            + "calls.fair_state = function()\n"
            + read("fair_state.lua")
            + "end\n"
            + "calls.admit, calls.release, calls.fair_admit, calls.fair_release ="
            + " admit, release, fair_admit, fair_release\n"
            + "return calls\n"
            + "end\n";
    return body;
  }

  /**
   * A step's functions: its text above {@link #MAIN_BODY}. The library defines them once, beside
   * nested_buckets.lua's, instead of making their closures again at every call.
   */
  private static String functions(String step) {
    return step.substring(0, mainBodyAt(step));
  }

  /** A step's main body, from {@link #MAIN_BODY} on: what runs at every call. */
  private static String mainBody(String step) {
    return step.substring(mainBodyAt(step));
  }

  private static int mainBodyAt(String step) {
    int at = step.indexOf(MAIN_BODY);
    if (at < 0) {
      throw new IllegalStateException("a step script has no line '" + MAIN_BODY + "'");
    }
    return at;
  }

  private static String register(String function, String step) {
    return "redis.register_function('"
        + function
        + "', function(keys, args)\n"
        + "  steps = steps or build()\n"
        + "  KEYS, ARGV = keys, args\n"
        + "  return steps."
        + step
        + "()\n"
        + "end)\n";
  }

  private static String read(String... resources) {
    StringBuilder text = new StringBuilder();
    for (String resource : resources) {
      try (InputStream in = Script.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing script resource " + resource);
        }
        text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return text.toString();
  }

  private static String sha1(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
