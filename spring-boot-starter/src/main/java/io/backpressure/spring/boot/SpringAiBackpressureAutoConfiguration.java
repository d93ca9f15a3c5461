package io.backpressure.spring.boot;

import io.backpressure.client.GateContext;
import io.backpressure.client.TokenEstimator;
import io.backpressure.springai.BackpressureAdvisor;
import io.backpressure.springai.OpenAiSendCheck;
import io.backpressure.springai.RateLimitFeedback;
import java.time.Duration;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Spring AI advisor over the default target's gate, when Spring AI and {@code
 * backpressure-spring-ai} are on the class path; a deferred call waits up to {@code
 * backpressure.max-wait} for its turn. Add it to a {@code ChatClient} with {@code
 * builder.defaultAdvisors(advisor)}. A {@link TokenEstimator} bean replaces the default estimate, a
 * {@link RateLimitFeedback} bean hears the provider's rate-limit reports. The gate hears each
 * answer's status and rate-limit headers through the OpenAI model's HTTP client ({@link
 * OpenAiSendCheck}); off with {@code backpressure.spring-ai.provider-feedback=false}. Start-up
 * fails when a {@code ChatModel} bean retries failed calls on its own ({@link
 * SpringAiModelRetries}).
 */
@AutoConfiguration(after = BackpressureAutoConfiguration.class)
@ConditionalOnClass({BackpressureAdvisor.class, CallAdvisor.class})
@ConditionalOnBean(BackpressureGates.class)
public class SpringAiBackpressureAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  BackpressureAdvisor backpressureAdvisor(
      BackpressureGates gates,
      BackpressureProperties properties,
      ObjectProvider<TokenEstimator> estimator,
      ObjectProvider<RateLimitFeedback> feedback) {
    BackpressureAdvisor.Builder builder =
        BackpressureAdvisor.builder(gates.defaultGate())
            .estimator(estimator.getIfAvailable(TokenEstimator::charsPerToken))
            .feedback(feedback.getIfAvailable(() -> RateLimitFeedback.NONE))
            .activityMaxWait(properties.getActivityMaxWait())
            .providerFeedback(properties.getSpringAi().isProviderFeedback());
    GateContext context = Contexts.defaultContext(properties);
    if (context != null) {
      builder.defaultContext(context);
    }
    Duration maxWait = Contexts.maxWait(properties);
    if (maxWait != null) {
      builder.maxWait(maxWait);
    }
    return builder.build();
  }

  /**
   * With Spring AI's OpenAI model on the class path, its HTTP client checks that each admitted call
   * leaves within its admission's send bound, else asks the gate again ({@link OpenAiSendCheck}).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = "org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer")
  static class OpenAiSendCheckConfiguration {
    @Bean
    @ConditionalOnMissingBean
    OpenAiSendCheck backpressureOpenAiSendCheck() {
      return new OpenAiSendCheck();
    }
  }

  /**
   * Fails start-up when a Spring AI {@code ChatModel} bean retries failed calls on its own; off
   * with {@code backpressure.spring-ai.check-model-retries=false}.
   */
  @Bean
  @ConditionalOnProperty(
      prefix = "backpressure.spring-ai",
      name = "check-model-retries",
      matchIfMissing = true)
  static SmartInitializingSingleton backpressureModelRetriesCheck(ListableBeanFactory beans) {
    return () -> SpringAiModelRetries.requireNone(beans.getBeansOfType(ChatModel.class));
  }
}
