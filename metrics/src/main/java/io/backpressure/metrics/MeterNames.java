package io.backpressure.metrics;

/**
 * The names and tag keys of every meter this module registers, in Micrometer's dotted form. A
 * Prometheus registry renders them with underscores, adds {@code _total} to counters and {@code
 * _seconds} to timers. The table in this module's README lists them with their meaning.
 */
final class MeterNames {
  static final String ADMISSIONS = "backpressure.admissions";
  static final String RELEASES = "backpressure.releases";
  static final String COST_ADMITTED = "backpressure.cost.admitted";
  static final String COST_RECONCILED = "backpressure.cost.reconciled";
  static final String COST_REFUNDED = "backpressure.cost.refunded";
  static final String COST_OVERRUN = "backpressure.cost.overrun";
  static final String DEFER_DELAY = "backpressure.defer.delay";
  static final String ADMISSION_LATENCY = "backpressure.admission.latency";
  static final String CAP = "backpressure.cap";
  static final String BUCKET_LEVEL = "backpressure.bucket.level";
  static final String BUCKET_UTILIZATION = "backpressure.bucket.utilization";
  static final String CLASS_BUCKET_LEVEL = "backpressure.class.bucket.level";
  static final String QUEUES_ACTIVE = "backpressure.queues.active";
  static final String STATE_FAILURES = "backpressure.state.failures";
  static final String STATE_UNGATED = "backpressure.state.ungated";
  static final String FEEDBACK_SIGNALS = "backpressure.feedback.signals";
  static final String FEEDBACK_IGNORED = "backpressure.feedback.ignored";
  static final String FEEDBACK_DECREASES = "backpressure.feedback.decreases";
  static final String FEEDBACK_ADOPTIONS = "backpressure.feedback.adoptions";
  static final String FEEDBACK_RAMPS = "backpressure.feedback.ramps";
  static final String CAP_EFFECTIVE = "backpressure.cap.effective";
  static final String CAP_APPLIED = "backpressure.cap.applied";
  static final String CAP_PROVIDER_LIMIT = "backpressure.cap.provider.limit";
  static final String OUTSIDE_RATE = "backpressure.outside.rate";
  static final String COOLDOWN_REMAINING = "backpressure.cooldown.remaining";
  static final String RAMP_FACTOR = "backpressure.ramp.factor";
  static final String LIMIT_IN_FLIGHT = "backpressure.limit.in.flight";
  static final String LIMIT_LEASES_EXPIRED = "backpressure.limit.leases.expired";
  static final String LIMIT_CONCURRENCY = "backpressure.limit.concurrency";
  static final String LIMIT_LATENCY = "backpressure.limit.latency";
  static final String LIMIT_RESET_DELAY = "backpressure.limit.reset.delay";
  static final String QUOTA_USED = "backpressure.quota.used";
  static final String QUOTA_REMAINING = "backpressure.quota.remaining";

  static final String TARGET = "target";
  static final String PRIORITY = "priority";
  static final String TENANT = "tenant";
  static final String OUTCOME = "outcome";
  static final String REASON = "reason";
  static final String RESULT = "result";
  static final String DIMENSION = "dimension";
  static final String KIND = "kind";

  /** The tag value of a priority the policy does not name (such calls are rejected). */
  static final String UNKNOWN_PRIORITY = "_unknown";

  /** The tag value shared by tenants past the tagged-tenant limit. */
  static final String OTHER_TENANTS = "_other";

  /** The {@code reason} of every outcome but {@code rejected}. */
  static final String NO_REASON = "none";

  private MeterNames() {}
}
