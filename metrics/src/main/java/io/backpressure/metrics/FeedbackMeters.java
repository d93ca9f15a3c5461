package io.backpressure.metrics;

import static io.backpressure.metrics.MeterNames.*;

import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider-feedback meters of one gate: the answers reported, by kind, counted as they pass;
 * and, read at scrape time from one sample of the gate's {@link FeedbackState} (at most once per
 * {@code maxAge}), the effective and applied caps, the outside-traffic estimate, the cooldowns, the
 * ramp's factor and the learning events. A state source that fails makes the gauges read NaN.
 * Thread-safe.
 */
final class FeedbackMeters {
  private static final Logger LOG = LoggerFactory.getLogger(FeedbackMeters.class);

  /** The kinds of answer counted, in the order of {@link #kind(ProviderSignal)}'s indices. */
  private static final List<String> KINDS =
      List.of("ok", "rate_limited", "client_error", "provider_error", "resumed");

  private final Counter[] signals = new Counter[KINDS.size()];
  private final Counter ignored;
  private final Supplier<FeedbackState> states;
  private final long maxAgeNanos;
  private Sample sample;

  FeedbackMeters(
      MeterRegistry registry,
      Tags target,
      List<String> dims,
      Supplier<FeedbackState> states,
      long maxAgeNanos,
      Consumer<Meter> registered) {
    this.states = states;
    this.maxAgeNanos = maxAgeNanos;
    for (int i = 0; i < KINDS.size(); i++) {
      signals[i] =
          Counter.builder(FEEDBACK_SIGNALS)
              .description("Provider answers reported to the gate, by kind")
              .tags(target.and(KIND, KINDS.get(i)))
              .register(registry);
      registered.accept(signals[i]);
    }
    ignored =
        Counter.builder(FEEDBACK_IGNORED)
            .description(
                "Malformed rate-limit header or body values ignored in the reported answers")
            .tags(target)
            .register(registry);
    registered.accept(ignored);
    if (states == null) {
      return;
    }
    for (String dim : dims) {
      Tags tags = target.and(DIMENSION, dim);
      registered.accept(
          gauge(
              registry,
              CAP_EFFECTIVE,
              tags,
              "The effective cap E_d learned from the provider, in units per second",
              s -> dim(s, dim).effective()));
      registered.accept(
          gauge(
              registry,
              CAP_APPLIED,
              tags,
              "What admission decides against: E_d times the recovery ramp, in units per second",
              s -> dim(s, dim).applied()));
      registered.accept(
          gauge(
              registry,
              CAP_PROVIDER_LIMIT,
              tags,
              "The provider's latest limit header, in units per second; NaN before one is seen",
              s -> dim(s, dim).limit()));
      registered.accept(
          gauge(
              registry,
              OUTSIDE_RATE,
              tags,
              "Traffic the provider counted that this gate did not admit, estimated, in units per second",
              s -> dim(s, dim).outside()));
      registered.accept(
          gauge(
              registry,
              COOLDOWN_REMAINING,
              tags,
              "Seconds left of the dimension's cooldown after a 429; 0 when none runs",
              s -> dim(s, dim).cooldownSeconds()));
    }
    registered.accept(
        gauge(
            registry,
            RAMP_FACTOR,
            target,
            "The recovery ramp's factor on every effective cap: 1 when no ramp runs",
            FeedbackState::rampMultiplier));
    registered.accept(
        counter(
            registry,
            FEEDBACK_DECREASES,
            target,
            "Multiplicative decreases of an effective cap after a 429",
            FeedbackState::decreases));
    registered.accept(
        counter(
            registry,
            FEEDBACK_ADOPTIONS,
            target,
            "Limit headers below the configured cap adopted",
            FeedbackState::adoptions));
    registered.accept(
        counter(
            registry,
            FEEDBACK_RAMPS,
            target,
            "Recovery ramps started (after failing open or a provider outage)",
            FeedbackState::ramps));
  }

  /** Counts one reported answer. */
  void reported(ProviderSignal signal) {
    signals[kind(signal)].increment();
    if (signal.ignored() > 0) {
      ignored.increment(signal.ignored());
    }
  }

  private static int kind(ProviderSignal signal) {
    if (signal.resumed()) {
      return 4;
    }
    if (signal.providerError()) {
      return 3;
    }
    if (signal.rateLimited()) {
      return 1;
    }
    return signal.status() >= 400 ? 2 : 0;
  }

  private Gauge gauge(
      MeterRegistry registry,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<FeedbackState> read) {
    return Gauge.builder(name, this, m -> m.read(read))
        .description(description)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  private FunctionCounter counter(
      MeterRegistry registry,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<FeedbackState> read) {
    return FunctionCounter.builder(name, this, m -> m.read(read))
        .description(description)
        .tags(tags)
        .register(registry);
  }

  private double read(ToDoubleFunction<FeedbackState> read) {
    FeedbackState state = sample().state;
    return state == null ? Double.NaN : read.applyAsDouble(state);
  }

  private synchronized Sample sample() {
    long now = System.nanoTime();
    if (sample != null && now - sample.takenAt < maxAgeNanos) {
      return sample;
    }
    FeedbackState state;
    try {
      state = states.get();
    } catch (RuntimeException e) {
      LOG.debug("could not sample the gate's feedback state", e);
      state = null;
    }
    sample = new Sample(now, state);
    return sample;
  }

  private record Sample(long takenAt, FeedbackState state) {}

  private static final FeedbackState.Dimension MISSING =
      new FeedbackState.Dimension(
          Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  /** A dimension of a state; NaN everywhere when the state does not have it. */
  private static FeedbackState.Dimension dim(FeedbackState state, String name) {
    FeedbackState.Dimension d = state.dimensions().get(name);
    return d == null ? MISSING : d;
  }
}
