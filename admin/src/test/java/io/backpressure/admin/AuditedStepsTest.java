package io.backpressure.admin;

import static io.backpressure.admin.AdminTarget.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The changes whose audit entry is written in the same atomic step as the change: {@code admin
 * apply} and {@code admin concurrency reset}. A trail that cannot be written leaves the change
 * unmade, so the trail never misses one.
 */
class AuditedStepsTest {
  private static final String POLICY =
      """
      target: openai/gpt-4o
      dimensions:
        requests: {per_second: 1000, burst: 1000}
      priorities: {P1: 1}
      """;

  private final AdminTarget target = new AdminTarget();
  @TempDir Path dir;

  /**
   * With the trail's key holding a string, where a stream belongs, the audit entry cannot be
   * appended: the apply fails and writes no policy. Mutation tried: the policy written, then the
   * entry appended in a second command (the target has the policy and the trail misses it).
   */
  @Test
  void anApplyWhoseAuditEntryCannotBeWrittenWritesNoPolicy() throws IOException {
    RedisClient client = RedisClient.create(TestRedis.shared().url());
    try (StatefulRedisConnection<String, String> redis = client.connect()) {
      redis.sync().set(target.prefix() + ":{" + TARGET + "}:audit", "not a stream");

      AdminCommandTest.Run apply = target.admin("apply", "-f", file(POLICY).toString());
      assertThat(apply.code()).as(apply.out()).isNotZero();
      assertThat(apply.err()).contains("WRONGTYPE");
      assertThat(target.admin("show", "--target", TARGET).code())
          .as("no policy was written")
          .isEqualTo(AdminCommand.NO_POLICY);

      redis.sync().del(target.prefix() + ":{" + TARGET + "}:audit");
      assertThat(target.admin("apply", "-f", file(POLICY).toString(), "--actor", "deploy").code())
          .isZero();
      JsonNode trail = target.admin("audit", "--target", TARGET, "--json").json().path("entries");
      assertThat(trail).hasSize(1);
      assertThat(trail.get(0).path("to").asText())
          .as("the entry names the version written")
          .isEqualTo(
              "version "
                  + target
                      .admin("show", "--target", TARGET, "--json")
                      .json()
                      .path("version")
                      .asText()
                  + " from "
                  + trail.get(0).path("to").asText().replaceFirst(".* from ", ""));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aResetPutsTheAdaptiveLimitBackToItsMinAndAuditsIt() throws Exception {
    try (RedisGate gate = target.gate(AdminTarget.adaptive())) {
      Admission.Admitted first = (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1));
      Admission.Admitted second = (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1));
      // Released at once, with both leases held: within the latency target, the limit grows by one.
      gate.release(first.grant(), Cost.requests(1));
      gate.release(second.grant(), Cost.requests(1));
      assertThat(limit()).isEqualTo(3);

      AdminCommandTest.Run reset =
          target.admin(
              "concurrency", "reset", "--actor", "ops@example", "--target", TARGET, "--json");
      assertThat(reset.code()).as(reset.err()).isZero();
      assertThat(reset.json().path("action").asText()).isEqualTo("reset");
      assertThat(reset.json().path("field").asText()).isEqualTo("concurrency.adaptive");
      assertThat(reset.json().path("from").asText()).isEqualTo("limit 3");
      assertThat(reset.json().path("to").asText()).isEqualTo("limit 2");
      assertThat(limit()).as("the min, at the next admission").isEqualTo(2);
      assertThat(target.admin("concurrency", "reset", "--target", TARGET).out())
          .contains("reset concurrency.adaptive limit 2 -> limit 2");

      JsonNode trail = target.admin("audit", "--target", TARGET, "--json").json().path("entries");
      assertThat(trail).as("the two resets, oldest first").hasSize(2);
      assertThat(trail.get(0).path("actor").asText()).isEqualTo("ops@example");
      assertThat(trail.get(0).path("field").asText()).isEqualTo("concurrency.adaptive");
    }
  }

  @Test
  void aTargetWithoutAnAdaptiveLimitIsRefusedAndNothingIsAudited() throws IOException {
    assertThat(target.admin("apply", "-f", file(POLICY).toString()).code()).isZero();

    AdminCommandTest.Run reset = target.admin("concurrency", "reset", "--target", TARGET);
    assertThat(reset.code()).isEqualTo(AdminCommand.INVALID);
    assertThat(reset.err())
        .contains("concurrency.adaptive")
        .contains("has no adaptive concurrency limit to reset");
    assertThat(target.admin("audit", "--target", TARGET, "--json").json().path("entries"))
        .hasSize(1);
    assertThat(target.admin("concurrency", "reset", "--target", "nobody/none").code())
        .isEqualTo(AdminCommand.NO_POLICY);
  }

  /** The adaptive limit in force, as {@code admin show} reads it. */
  private long limit() throws IOException {
    return target
        .admin("show", "--target", TARGET, "--json")
        .json()
        .path("limits")
        .path("concurrency")
        .path("max_in_flight")
        .asLong();
  }

  private Path file(String text) throws IOException {
    Path file = Files.createTempFile(dir, "policy", ".yaml");
    Files.writeString(file, text);
    return file;
  }
}
