package io.backpressure.eval.real;

import io.backpressure.mock.RequestRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Each gated request's way from the gate to the provider, on the run's clock: when the gate
 * admitted it, when the client sent it ({@link Ledger.Send}), and when the provider decided it (its
 * own record). The provider counts arrivals, the gate admissions, so how far and how unevenly the
 * two lie apart is what a provider window can see beyond the gate's own count (the evaluation
 * README, faults). A call's sends and the provider's records of it are paired in order; a call
 * whose counts differ (a worker died between the send and its record) is left out.
 */
final class SendDelays {
  private SendDelays() {}

  /**
   * One request: admitted, sent, and arrived, in nanoseconds since the run's origin.
   *
   * @param status the provider's answer
   */
  record Row(String callId, long admittedNanos, long sentNanos, long arrivedNanos, int status) {}

  /**
   * @param records the provider's records
   * @param providerToRunNanos subtracted from a record's time to give the run's
   */
  static List<Row> join(
      List<Ledger.Send> sends, List<RequestRecord> records, long providerToRunNanos) {
    Map<String, ArrayDeque<RequestRecord>> byCall = new HashMap<>();
    records.stream()
        .filter(r -> r.callId() != null)
        .filter(r -> r.status() == 200 || r.status() == 429 || r.status() == 500)
        .sorted(Comparator.comparingLong(RequestRecord::arrivalNanos))
        .forEach(r -> byCall.computeIfAbsent(r.callId(), id -> new ArrayDeque<>()).add(r));
    Map<String, List<Ledger.Send>> sent = new HashMap<>();
    sends.stream()
        .sorted(Comparator.comparingLong(Ledger.Send::sentNanos))
        .forEach(s -> sent.computeIfAbsent(s.callId(), id -> new ArrayList<>()).add(s));
    List<Row> rows = new ArrayList<>();
    sent.forEach(
        (callId, ofCall) -> {
          ArrayDeque<RequestRecord> arrived = byCall.getOrDefault(callId, new ArrayDeque<>());
          if (arrived.size() != ofCall.size()) {
            return;
          }
          for (Ledger.Send s : ofCall) {
            RequestRecord r = arrived.poll();
            rows.add(
                new Row(
                    callId,
                    s.admittedNanos(),
                    s.sentNanos(),
                    r.arrivalNanos() - providerToRunNanos,
                    r.status()));
          }
        });
    rows.sort(Comparator.comparingLong(Row::admittedNanos));
    return rows;
  }

  /** Writes {@code rows} as CSV (seconds since the run's origin, to the microsecond). */
  static void write(Path file, List<Row> rows) {
    StringBuilder csv = new StringBuilder("call_id,admitted_s,sent_s,arrived_s,status\n");
    for (Row r : rows) {
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%.6f,%.6f,%.6f,%d%n",
              r.callId(),
              r.admittedNanos() / 1e9,
              r.sentNanos() / 1e9,
              r.arrivedNanos() / 1e9,
              r.status()));
    }
    try {
      Files.writeString(file, csv);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
