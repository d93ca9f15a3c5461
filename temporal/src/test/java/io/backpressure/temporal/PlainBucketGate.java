package io.backpressure.temporal;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.time.Duration;

/**
 * The contrast: one token bucket of requests, no classes, no bookings. A deferred call is told when
 * the next token arrives, and so is every other call deferred in the meantime.
 */
final class PlainBucketGate implements Gate {
  private final double rate;
  private final double burst;
  private double level;
  private long last = System.nanoTime();
  private long ids;

  PlainBucketGate(double rate, double burst) {
    this.rate = rate;
    this.burst = burst;
    this.level = burst;
  }

  @Override
  public String target() {
    return "plain";
  }

  @Override
  public synchronized Admission admit(AdmissionRequest request) {
    long now = System.nanoTime();
    level = Math.min(burst, level + (now - last) / 1e9 * rate);
    last = now;
    ids++;
    if (level >= 1) {
      level -= 1;
      return new Admission.Admitted(
          new Grant("g" + ids, request.tenant(), request.priority(), request.cost(), false));
    }
    return new Admission.Deferred(Duration.ofNanos((long) ((1 - level) / rate * 1e9)), "b" + ids);
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    return true;
  }
}
