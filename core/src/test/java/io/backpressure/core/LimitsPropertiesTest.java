package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * A per-day limit and a concurrency limit on the in-memory gate, driven by random sequences of
 * admissions, releases and clock steps around the DST changes of four zones (New York, Paris,
 * Sydney, Lord Howe Island), against a model that counts admissions per local calendar date and
 * leases by their expiry. Every answer must be the model's: admitted while the day has room and a
 * lease is free; deferred, for the time until the earliest lease expires but at most 250 ms, while
 * {@code max_in_flight} leases are held; rejected as {@link RejectReason#LIMIT_REACHED} with the
 * next local midnight as its reset once the day holds {@code per_day} admissions, and admitted
 * again from that midnight on. So no more than {@code max_in_flight} calls are ever in flight and
 * no more than {@code per_day} are admitted in one local day, days of 23, 23.5, 24.5 and 25 hours
 * included.
 */
class LimitsPropertiesTest {
  /**
   * Zones whose clocks change in 2026, each way: north and south of the equator, by an hour and
   * (Lord Howe Island) by half an hour, so that days last 23, 23.5, 24.5 or 25 hours.
   */
  private static final List<ZoneId> ZONES =
      List.of(
          ZoneId.of("America/New_York"),
          ZoneId.of("Europe/Paris"),
          ZoneId.of("Australia/Sydney"),
          ZoneId.of("Australia/Lord_Howe"));

  /** The instants in 2026 at which {@code zone}'s clocks change. */
  private static List<Instant> dstChanges(ZoneId zone) {
    List<Instant> changes = new ArrayList<>();
    Instant from = Instant.parse("2026-01-01T00:00:00Z");
    for (ZoneOffsetTransition t = zone.getRules().nextTransition(from);
        t != null && t.getInstant().isBefore(Instant.parse("2027-01-01T00:00:00Z"));
        t = zone.getRules().nextTransition(t.getInstant())) {
      changes.add(t.getInstant());
    }
    return changes;
  }

  private static final Duration POLL = Duration.ofMillis(250);

  /** One step of a run. */
  sealed interface Step {}

  /** An admission of one request for {@code tenant}. */
  record Admit(String tenant) implements Step {}

  /** The release, with its cost, of the held grant at {@code pick} modulo how many are held. */
  record Release(int pick) implements Step {}

  /** Time moves on by {@code millis}. */
  record Advance(long millis) implements Step {}

  /** Time moves to the next local midnight plus {@code offsetMillis} (−1, 0 or 1). */
  record ToMidnight(long offsetMillis) implements Step {}

  /** A run: where it starts, the limits, and its steps. */
  record Scenario(
      ZoneId zone,
      Instant start,
      int perDay,
      int maxInFlight,
      Duration leaseTtl,
      List<Step> steps) {}

  /** A call admitted in the model. */
  private record Held(Grant grant, long leaseExpiry) {}

  @Property(tries = 200)
  void neverMoreInFlightOrInADayThanTheLimits_andTheDayResetsAtLocalMidnight(
      @ForAll("scenarios") Scenario s) {
    ManualClock clock = new ManualClock(nanos(s.start()));
    InMemoryGate gate =
        InMemoryGate.create(
            Policy.builder("limits/properties")
                .requestsPerSecond(1_000)
                .priority("P1", 1)
                .perDay(Dimension.REQUESTS, s.perDay())
                .concurrency(s.maxInFlight(), s.leaseTtl())
                .timeZone(s.zone())
                .build(),
            clock,
            clock);
    Map<LocalDate, Integer> admittedOn = new HashMap<>();
    List<Held> held = new ArrayList<>();
    boolean rejected = false;
    boolean rejectedOnADstDay = false;
    boolean admittedAfterAReset = false;
    LocalDate lastRejectedOn = null;
    for (Step step : s.steps()) {
      long now = clock.nanoTime();
      if (step instanceof Admit admit) {
        LocalDate today = Instant.ofEpochSecond(0, now).atZone(s.zone()).toLocalDate();
        int count = admittedOn.getOrDefault(today, 0);
        List<Held> inForce = held.stream().filter(h -> h.leaseExpiry() > now).toList();
        Admission answer = gate.admit(admit.tenant(), "P1", Cost.requests(1));
        if (count >= s.perDay()) {
          Instant nextMidnight = today.plusDays(1).atStartOfDay(s.zone()).toInstant();
          assertThat(answer)
              .as("the %s admission of %s", count + 1, today)
              .isInstanceOfSatisfying(
                  Admission.Rejected.class,
                  r -> {
                    assertThat(r.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
                    assertThat(r.resetAt()).isEqualTo(nextMidnight);
                  });
          rejected = true;
          rejectedOnADstDay |=
              Duration.between(today.atStartOfDay(s.zone()).toInstant(), nextMidnight).toMinutes()
                  != 24 * 60;
          lastRejectedOn = today;
        } else if (inForce.size() >= s.maxInFlight()) {
          long earliest = inForce.stream().mapToLong(Held::leaseExpiry).min().orElseThrow();
          Duration untilExpiry = Duration.ofNanos(earliest - now);
          Duration wait = untilExpiry.compareTo(POLL) < 0 ? untilExpiry : POLL;
          assertThat(answer)
              .as("an admission with %s leases in force", inForce.size())
              .isInstanceOfSatisfying(
                  Admission.Deferred.class, d -> assertThat(d.retryAfter()).isEqualTo(wait));
        } else {
          assertThat(answer)
              .as("the %s admission of %s, %s in flight", count + 1, today, inForce.size())
              .isInstanceOf(Admission.Admitted.class);
          admittedOn.put(today, count + 1);
          held.add(new Held(((Admission.Admitted) answer).grant(), now + s.leaseTtl().toNanos()));
          if (lastRejectedOn != null && today.isAfter(lastRejectedOn)) {
            admittedAfterAReset = true;
          }
        }
        double[] counter = gate.limitCounter("d:requests:day");
        if (counter != null && counter[0] == micros(today.atStartOfDay(s.zone()).toInstant())) {
          assertThat(counter[1])
              .as("the day's counter")
              .isEqualTo((double) admittedOn.getOrDefault(today, 0));
        }
      } else if (step instanceof Release release) {
        if (!held.isEmpty()) {
          Held h = held.remove(Math.floorMod(release.pick(), held.size()));
          gate.release(h.grant(), Cost.requests(1));
        }
      } else if (step instanceof Advance advance) {
        clock.advance(Duration.ofMillis(advance.millis()));
      } else if (step instanceof ToMidnight midnight) {
        LocalDate today = Instant.ofEpochSecond(0, now).atZone(s.zone()).toLocalDate();
        long target =
            nanos(today.plusDays(1).atStartOfDay(s.zone()).toInstant())
                + Duration.ofMillis(midnight.offsetMillis()).toNanos();
        clock.set(Math.max(now, target));
      }
      long after = clock.nanoTime();
      long inFlight = held.stream().filter(h -> h.leaseExpiry() > after).count();
      assertThat(gate.inFlight()).as("calls in flight").isEqualTo(inFlight);
      assertThat(inFlight).isLessThanOrEqualTo(s.maxInFlight());
    }
    admittedOn.values().forEach(n -> assertThat(n).isLessThanOrEqualTo(s.perDay()));
    Statistics.label("a day's limit reached").collect(rejected);
    Statistics.label("a 23- or 25-hour day's limit reached").collect(rejectedOnADstDay);
    Statistics.label("admitted the day after a rejection").collect(admittedAfterAReset);
    Statistics.label("a day's limit reached").coverage(c -> c.check(true).percentage(p -> p > 40));
    Statistics.label("a 23- or 25-hour day's limit reached")
        .coverage(c -> c.check(true).percentage(p -> p > 15));
    Statistics.label("admitted the day after a rejection")
        .coverage(c -> c.check(true).percentage(p -> p > 20));
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Step> step =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.of("a", "b", "c").map(Admit::new)),
            Tuple.of(3, Arbitraries.integers().between(0, 1_000).map(Release::new)),
            Tuple.of(3, Arbitraries.longs().between(0, 3_000).map(Advance::new)),
            Tuple.of(1, Arbitraries.longs().between(60_000, 3_600_000).map(Advance::new)),
            Tuple.of(1, Arbitraries.longs().between(3_600_000, 8 * 3_600_000L).map(Advance::new)),
            Tuple.of(1, Arbitraries.longs().between(-1, 1).map(ToMidnight::new)));
    return Arbitraries.of(ZONES)
        .flatMap(
            zone ->
                Combinators.combine(
                        Combinators.combine(
                                Arbitraries.of(dstChanges(zone)),
                                Arbitraries.longs().between(-36 * 3_600_000L, 12 * 3_600_000L))
                            .as(Instant::plusMillis),
                        Arbitraries.integers().between(1, 8),
                        Arbitraries.integers().between(1, 4),
                        Arbitraries.longs().between(1, 30).map(Duration::ofSeconds),
                        step.list().ofMinSize(20).ofMaxSize(150))
                    .as(
                        (start, perDay, maxInFlight, ttl, steps) ->
                            new Scenario(zone, start, perDay, maxInFlight, ttl, steps)));
  }

  private static long nanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }

  private static long micros(Instant instant) {
    return nanos(instant) / 1_000;
  }
}
