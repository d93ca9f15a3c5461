package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.GateLevels;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.redis.RedisPolicyStore;
import java.util.NoSuchElementException;
import picocli.CommandLine.Command;

/**
 * {@code admin show}: the target's caps, weights and options, its live bucket levels, what it
 * learned from the provider (effective caps, outside traffic, cooldowns), and its limits (calls in
 * flight, quotas used and left).
 */
@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    description = {
      "Shows a target's caps, weights and options, and its live bucket levels.",
      "Levels: global bucket level and use per dimension, class bucket levels, active queues;"
          + " under the fair-queuing rule the cap's level per dimension (it keeps no class"
          + " buckets).",
      "Feedback: configured, effective and applied caps, the provider's limit, outside traffic,"
          + " cooldowns, the recovery ramp and the learning events.",
      "Limits: calls in flight at the target, per class and per limited tenant; each class's and"
          + " named tenant's quota used, remaining and its reset."
    })
final class ShowCommand extends TargetCommand {
  @Override
  public Integer call() {
    return Output.run(
        spec,
        connection.json,
        () ->
            connection.withStore(
                target,
                store -> {
                  RedisPolicyStore.Stored stored =
                      store
                          .read()
                          .orElseThrow(
                              () ->
                                  new NoSuchElementException(
                                      "target '" + target + "' has no policy in Redis"));
                  GateLevels levels = store.levels().orElse(null);
                  boolean fair = store.fairQueuing();
                  ObjectNode json = Output.JSON.createObjectNode();
                  json.put("target", target);
                  json.put("version", stored.version());
                  json.put("rule", fair ? "fair_queuing" : "nested_buckets");
                  json.set("policy", PolicyView.json(stored.policy()));
                  if (levels == null) {
                    json.putNull("levels");
                  } else {
                    json.set("levels", PolicyView.json(stored.policy(), levels, fair));
                  }
                  FeedbackState feedback = store.feedbackState().orElse(null);
                  String text = PolicyView.text(stored.policy(), stored.version(), levels, fair);
                  if (feedback == null) {
                    json.putNull("feedback");
                  } else {
                    json.set("feedback", FeedbackView.json(stored.policy().feedback(), feedback));
                    text += FeedbackView.text(stored.policy().feedback(), feedback);
                  }
                  LimitsView.Read limits = LimitsView.read(stored.policy(), store);
                  if (limits == null) {
                    json.putNull("limits");
                  } else {
                    json.set("limits", limits.json());
                    text += limits.text();
                  }
                  return new Output.Result(text, json);
                }));
  }
}
