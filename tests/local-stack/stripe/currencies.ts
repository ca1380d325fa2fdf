/** The currencies Stripe accepts for prices (ISO 4217, lowercase), as its API lists them. */
export const STRIPE_CURRENCIES: readonly string[] = (
  'usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bif bmd bnd bob brl bsd ' +
  'bwp byn bzd cad cdf chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp ' +
  'gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr ils inr isk jmd jpy kes kgs khr kmf ' +
  'krw kyd kzt lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn ' +
  'nad ngn nio nok npr nzd pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr ' +
  'sek sgd shp sle sos srd std szl thb tjs top try ttd twd tzs uah ugx uyu uzs vnd vuv ' +
  'wst xaf xcd xcg xof xpf yer zar zmw'
).split(' ')
