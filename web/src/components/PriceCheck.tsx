import { formatYuan, type PriceCheckView } from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';

/** Money as every client shows it (the one formatter in `src/protocol/format.ts`). */
export const money = formatYuan;

/** A price against the project's 12-month median: severity and deviation, the median on hover. */
export function PriceCheckBadge({ check }: { check: PriceCheckView }) {
  const t = useT();
  const deviation =
    check.deviationPct === null ? '' : ` ${check.deviationPct > 0 ? '+' : ''}${check.deviationPct.toFixed(1)}%`;
  return (
    <span
      className={`price-check price-${check.severity}`}
      data-testid="price-check"
      data-severity={check.severity}
      title={check.median12m === null ? t('priceUnknown') : `${t('priceMedian')} ${money(check.median12m)}`}
    >
      {t(`price_${check.severity}`)}
      {deviation}
    </span>
  );
}
