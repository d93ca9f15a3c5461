package io.backpressure.spring.boot;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.Ticker;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.langchain4j.GatedStreamingChatModel;
import io.backpressure.langchain4j.SendCheckingHttpClientBuilder;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wraps every LangChain4j {@link ChatModel} and {@link StreamingChatModel} bean in its gated
 * decorator over the default target's gate, when LangChain4j and {@code backpressure-langchain4j}
 * are on the class path; a deferred call waits up to {@code backpressure.max-wait} for its turn.
 * Off with {@code backpressure.langchain4j.decorate-models=false}. A wrapped bean is injectable as
 * {@code ChatModel} (no longer as its concrete class).
 *
 * <p>Every LangChain4j {@link HttpClientBuilder} bean is wrapped in a {@link
 * SendCheckingHttpClientBuilder}, so that a model built from it checks that each admitted call
 * leaves within its gate's {@code sendWithin()} of its admission, else asks the gate again. The
 * models of LangChain4j's Spring Boot starters are built that way (each from its own builder bean,
 * {@code openAiChatModelHttpClientBuilder} for one); a model the application builds itself in a
 * {@code @Bean} method gets the check from {@code
 * .httpClientBuilder(SendCheckingHttpClientBuilder.create())}. A wrapped builder bean is injectable
 * as {@code HttpClientBuilder} (no longer as its concrete class). The same client hands each
 * answer's status and headers to the gate, which then follows the provider's own count and
 * retry-after; off with {@code backpressure.langchain4j.provider-feedback=false}.
 */
@AutoConfiguration(after = BackpressureAutoConfiguration.class)
@ConditionalOnClass({GatedChatModel.class, ChatModel.class})
@ConditionalOnBean(BackpressureGates.class)
@ConditionalOnProperty(
    prefix = "backpressure.langchain4j",
    name = "decorate-models",
    matchIfMissing = true)
public class LangChain4jBackpressureAutoConfiguration {

  @Bean
  static BeanPostProcessor backpressureChatModelDecorator(
      ObjectProvider<BackpressureGates> gates,
      ObjectProvider<BackpressureProperties> properties,
      ObjectProvider<TokenEstimator> estimator,
      ObjectProvider<Ticker> clock) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof GatedChatModel || bean instanceof GatedStreamingChatModel) {
          return bean;
        }
        if (bean instanceof ChatModel model) {
          GatedChatModel.Builder builder =
              GatedChatModel.builder(model, gates.getObject().defaultGate())
                  .estimator(estimator.getIfAvailable(TokenEstimator::charsPerToken))
                  .activityMaxWait(properties.getObject().getActivityMaxWait())
                  .ticker(clock.getIfAvailable(Ticker::system))
                  .providerFeedback(properties.getObject().getLangchain4j().isProviderFeedback());
          Duration maxWait = Contexts.maxWait(properties.getObject());
          if (maxWait != null) {
            builder.maxWait(maxWait);
          }
          GateContext context = Contexts.defaultContext(properties.getObject());
          return context == null ? builder.build() : builder.defaultContext(context).build();
        }
        if (bean instanceof StreamingChatModel model) {
          GatedStreamingChatModel.Builder builder =
              GatedStreamingChatModel.builder(model, gates.getObject().defaultGate())
                  .estimator(estimator.getIfAvailable(TokenEstimator::charsPerToken))
                  .activityMaxWait(properties.getObject().getActivityMaxWait())
                  .ticker(clock.getIfAvailable(Ticker::system))
                  .providerFeedback(properties.getObject().getLangchain4j().isProviderFeedback());
          Duration maxWait = Contexts.maxWait(properties.getObject());
          if (maxWait != null) {
            builder.maxWait(maxWait);
          }
          GateContext context = Contexts.defaultContext(properties.getObject());
          return context == null ? builder.build() : builder.defaultContext(context).build();
        }
        return bean;
      }
    };
  }

  /**
   * With LangChain4j's HTTP client SPI on the class path, every {@link HttpClientBuilder} bean
   * applies the send check ({@link SendCheckingHttpClientBuilder}); a builder bean that already
   * does is left as it is.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.langchain4j.http.client.HttpClientBuilder")
  static class SendCheckConfiguration {
    @Bean
    static BeanPostProcessor backpressureHttpClientBuilderSendCheck() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
          if (bean instanceof HttpClientBuilder builder
              && !(bean instanceof SendCheckingHttpClientBuilder)) {
            return SendCheckingHttpClientBuilder.around(builder);
          }
          return bean;
        }
      };
    }
  }
}
