/** Question templates for generated Gamma markets: politics, sports, crypto, economics, science. */

export interface GammaTag {
  id: string;
  label: string;
  slug: string;
}

export interface Question {
  text: string;
  description: string;
  /** Default `["Yes", "No"]`. */
  outcomes?: string[];
  /** Tags beyond the topic's own. */
  tags?: GammaTag[];
}

export type QuestionTemplate = (random: () => number, endMs: number) => Question;

export interface Topic {
  tags: readonly GammaTag[];
  questions: readonly QuestionTemplate[];
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function day(ms: number): string {
  const date = new Date(ms);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

function month(ms: number): string {
  const date = new Date(ms);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

function yesNo(condition: string, source: string): string {
  return `This market will resolve to "Yes" if ${condition}. Otherwise, this market will resolve to "No". ` +
    `The resolution source for this market is ${source}.`;
}

const tag = (id: string, label: string): GammaTag => ({
  id,
  label,
  slug: label.toLowerCase().replace(/ /g, "-"),
});

const COUNTRIES = [
  "France",
  "Germany",
  "Japan",
  "Brazil",
  "Canada",
  "India",
  "Italy",
  "Spain",
  "Poland",
  "Mexico",
];
const POSTS = [
  "Secretary of Labor",
  "Fed Governor",
  "Attorney General",
  "UN Ambassador",
  "Secretary of Commerce",
];
const BILLS = [
  "government funding bill",
  "farm bill",
  "crypto market structure bill",
  "NDAA",
  "stablecoin bill",
];
const CANDIDATES = [
  "Elena Ruiz",
  "Marcus Bell",
  "Priya Raman",
  "Tom Okafor",
  "Sofia Lindqvist",
  "Daniel Weiss",
];
const CITIES = ["Chicago", "Houston", "Seattle", "Atlanta", "Denver", "Boston"];

const politics: Topic = {
  tags: [tag("2", "Politics"), tag("101970", "World")],
  questions: [
    (r, e) => {
      const country = pick(r, COUNTRIES);
      return {
        text: `Will ${country} hold a snap national election by ${day(e)}?`,
        description: yesNo(
          `${country} holds a national legislative election by ${day(e)}, 11:59 PM ET`,
          "official government announcements",
        ),
      };
    },
    (r, e) => {
      const country = pick(r, COUNTRIES);
      return {
        text: `Will the ${country} government lose a confidence vote before ${day(e)}?`,
        description: yesNo(
          `the government of ${country} loses a confidence or no-confidence vote before ${day(e)}`,
          "the national parliament's records",
        ),
      };
    },
    (r, e) => {
      const post = pick(r, POSTS);
      return {
        text: `Will the Senate confirm a new ${post} by ${day(e)}?`,
        description: yesNo(`the US Senate confirms a nominee for ${post} by ${day(e)}`, "senate.gov"),
        tags: [tag("1101", "US Politics")],
      };
    },
    (r, e) => {
      const bill = pick(r, BILLS);
      return {
        text: `Will the ${bill} pass the House before ${day(e)}?`,
        description: yesNo(
          `the US House of Representatives passes the ${bill} before ${day(e)}`,
          "congress.gov",
        ),
        tags: [tag("1101", "US Politics")],
      };
    },
    (r, e) => {
      const first = pick(r, CANDIDATES);
      const second = pick(r, CANDIDATES.filter((name) => name !== first));
      const city = pick(r, CITIES);
      return {
        text: `Who will win the ${city} mayoral runoff?`,
        description:
          `This market will resolve to the candidate who wins the ${city} mayoral runoff held by ${
            day(e)
          }. ` +
          `If no runoff takes place by then, this market will resolve to "Other".`,
        outcomes: [first, second, "Other"],
        tags: [tag("144", "Elections")],
      };
    },
  ],
};

const NBA = [
  "Lakers",
  "Celtics",
  "Knicks",
  "Nuggets",
  "Warriors",
  "Bucks",
  "Heat",
  "Suns",
  "Thunder",
  "Mavericks",
];
const CLUBS = [
  "Arsenal",
  "Liverpool",
  "Chelsea",
  "Man City",
  "Tottenham",
  "Newcastle",
  "Aston Villa",
  "Brighton",
];
const PLAYERS = [
  "Carlos Alcaraz",
  "Jannik Sinner",
  "Iga Swiatek",
  "Coco Gauff",
  "Aryna Sabalenka",
  "Ben Shelton",
];

const sports: Topic = {
  tags: [tag("1", "Sports"), tag("100639", "Games")],
  questions: [
    (r, e) => {
      const home = pick(r, NBA);
      const away = pick(r, NBA.filter((team) => team !== home));
      return {
        text: `${away} vs. ${home}`,
        description:
          `In the upcoming NBA game, scheduled for ${
            day(e)
          }: if the ${away} win, the market will resolve to ` +
          `"${away}"; if the ${home} win, to "${home}". If the game is canceled entirely, with no make-up game, ` +
          `this market will resolve 50-50.`,
        outcomes: [away, home],
        tags: [tag("745", "NBA")],
      };
    },
    (r, e) => {
      const home = pick(r, CLUBS);
      const away = pick(r, CLUBS.filter((club) => club !== home));
      return {
        text: `${home} vs. ${away}: match result`,
        description:
          `This market resolves to the result of the Premier League match between ${home} and ${away} ` +
          `scheduled for ${day(e)}, after 90 minutes plus stoppage time.`,
        outcomes: [home, "Draw", away],
        tags: [tag("306", "EPL")],
      };
    },
    (r, e) => {
      const team = pick(r, NBA);
      const line = 210 + Math.floor(r() * 30);
      return {
        text: `${team} game on ${day(e)}: total points over ${line}.5?`,
        description:
          `This market resolves to "Over" if the combined score of the ${team} game on ${day(e)} is ` +
          `greater than ${line}.5, including overtime. Otherwise, it resolves to "Under".`,
        outcomes: ["Over", "Under"],
        tags: [tag("745", "NBA")],
      };
    },
    (r, e) => {
      const player = pick(r, PLAYERS);
      return {
        text: `Will ${player} reach the quarterfinals of the next ATP/WTA Masters event before ${day(e)}?`,
        description: yesNo(
          `${player} wins a fourth-round match at a Masters 1000 event completed before ${day(e)}`,
          "the official ATP and WTA websites",
        ),
        tags: [tag("864", "Tennis")],
      };
    },
    (r, e) => {
      const club = pick(r, CLUBS);
      return {
        text: `Will ${club} be top of the Premier League on ${day(e)}?`,
        description: yesNo(
          `${club} are first in the Premier League table at 11:59 PM ET on ${day(e)}`,
          "premierleague.com",
        ),
        tags: [tag("306", "EPL")],
      };
    },
  ],
};

const COINS = [
  { name: "Bitcoin", symbol: "BTC", price: 96_000, step: 1000, tag: tag("235", "Bitcoin") },
  { name: "Ethereum", symbol: "ETH", price: 3600, step: 100, tag: tag("39", "Ethereum") },
  { name: "Solana", symbol: "SOL", price: 190, step: 5, tag: tag("818", "Solana") },
  { name: "XRP", symbol: "XRP", price: 2.4, step: 0.1, tag: tag("101267", "XRP") },
] as const;

/** `96000` -> `96,000`; `2.5` stays `2.5`. */
function dollars(value: number): string {
  const [whole = "0", fraction] = String(Math.round(value * 100) / 100).split(".");
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (fraction === undefined ? "" : `.${fraction}`);
}

function target(random: () => number, coin: (typeof COINS)[number], low: number, high: number): string {
  return dollars(Math.round((coin.price * (low + random() * (high - low))) / coin.step) * coin.step);
}

const crypto: Topic = {
  tags: [tag("21", "Crypto"), tag("1312", "Crypto Prices")],
  questions: [
    (r, e) => {
      const coin = pick(r, COINS);
      return {
        text: `Will ${coin.name} hit a new all-time high by ${day(e)}?`,
        description: yesNo(
          `any Binance 1 minute candle for ${coin.symbol}/USDT sets a new all-time high before ${
            day(e)
          }, 11:59 PM ET`,
          "Binance",
        ),
        tags: [coin.tag],
      };
    },
    (r, e) => {
      const flows = 200 + Math.floor(r() * 16) * 50;
      return {
        text: `Will US spot Bitcoin ETFs see more than $${flows}M of net inflows in the week ending ${
          day(e)
        }?`,
        description: yesNo(
          `the combined net inflows of US spot Bitcoin ETFs for the week ending ${
            day(e)
          } exceed $${flows} million`,
          "Farside Investors",
        ),
        tags: [COINS[0].tag, tag("102401", "ETFs")],
      };
    },
    (r, e) => {
      const coin = pick(r, COINS);
      const price = target(r, coin, 1.05, 1.5);
      return {
        text: `Will ${coin.name} reach $${price} by ${day(e)}?`,
        description: yesNo(
          `any Binance 1 minute candle for ${coin.symbol}/USDT has a final "High" of $${price} or more before ${
            day(e)
          }, 11:59 PM ET`,
          "Binance",
        ),
        tags: [coin.tag],
      };
    },
    (r, e) => {
      const coin = pick(r, COINS);
      return {
        text: `${coin.name} Up or Down on ${day(e)}?`,
        description:
          `This market will resolve to "Up" if the ${coin.symbol}/USDT daily candle on Binance for ${
            day(e)
          } ` +
          `closes above its open. Otherwise, this market will resolve to "Down".`,
        outcomes: ["Up", "Down"],
        tags: [coin.tag],
      };
    },
    (r, e) => {
      const coin = pick(r, COINS);
      const price = target(r, coin, 0.85, 1.15);
      return {
        text: `Will ${coin.name} close above $${price} on ${day(e)}?`,
        description: yesNo(
          `the Binance ${coin.symbol}/USDT 1 minute candle at 12:00 ET on ${day(e)} closes above $${price}`,
          "Binance",
        ),
        tags: [coin.tag],
      };
    },
    (r, e) => {
      const coin = pick(r, COINS);
      const price = target(r, coin, 0.55, 0.9);
      return {
        text: `Will ${coin.name} dip below $${price} before ${day(e)}?`,
        description: yesNo(
          `any Binance 1 minute candle for ${coin.symbol}/USDT has a final "Low" below $${price} before ${
            day(e)
          }`,
          "Binance",
        ),
        tags: [coin.tag],
      };
    },
  ],
};

const COMPANIES = ["NVIDIA", "Apple", "Microsoft", "Alphabet", "Amazon"];

const economics: Topic = {
  tags: [tag("100328", "Economy"), tag("120", "Finance")],
  questions: [
    (_r, e) => ({
      text: `Will the Fed cut interest rates at the ${month(e)} FOMC meeting?`,
      description: yesNo(
        `the FOMC lowers the upper bound of the federal funds target range at its ${month(e)} meeting`,
        "the Federal Reserve's statement",
      ),
      tags: [tag("159", "Fed Rates")],
    }),
    (_r, e) => ({
      text: `Fed decision in ${month(e)}?`,
      description: `This market resolves to the change in the federal funds target range announced at the ${
        month(e)
      } FOMC meeting.`,
      outcomes: ["No change", "25 bps decrease", "50+ bps decrease", "25+ bps increase"],
      tags: [tag("159", "Fed Rates")],
    }),
    (r, e) => {
      const level = (2.4 + Math.floor(r() * 10) / 10).toFixed(1);
      return {
        text: `Will US annual CPI inflation be ${level}% or higher in the report released by ${day(e)}?`,
        description: yesNo(
          `the year-over-year CPI-U figure published by the BLS by ${day(e)} is ${level}% or higher`,
          "bls.gov",
        ),
      };
    },
    (r, e) => {
      const level = (4 + Math.floor(r() * 8) / 10).toFixed(1);
      return {
        text: `Will the US unemployment rate be ${level}% or higher in the jobs report released by ${
          day(e)
        }?`,
        description: yesNo(
          `the headline unemployment rate in the Employment Situation report released by ${
            day(e)
          } is ${level}% or higher`,
          "bls.gov",
        ),
      };
    },
    (r, e) => {
      const company = pick(r, COMPANIES);
      return {
        text: `Will ${company} be the largest company in the world by market cap on ${day(e)}?`,
        description: yesNo(
          `${company} has the highest market capitalisation of any listed company at the close on ${day(e)}`,
          "companiesmarketcap.com",
        ),
        tags: [tag("107", "Business")],
      };
    },
    (r, e) => {
      const price = dollars(4000 + Math.floor(r() * 20) * 50);
      return {
        text: `Will gold settle above $${price} per ounce on ${day(e)}?`,
        description: yesNo(
          `the COMEX front-month gold futures settlement on ${day(e)} is above $${price}`,
          "CME Group",
        ),
        tags: [tag("102000", "Commodities")],
      };
    },
  ],
};

const MODELS = ["GPT-6", "Gemini 4", "Claude 6", "Grok 6", "Llama 6", "DeepSeek V5"];
const REGIONS = ["Japan", "California", "Chile", "Indonesia", "Turkey", "Alaska"];

const science: Topic = {
  tags: [tag("74", "Science"), tag("1401", "Tech")],
  questions: [
    (r, e) => {
      const model = pick(r, MODELS);
      return {
        text: `Will ${model} be publicly released before ${day(e)}?`,
        description: yesNo(
          `a model explicitly named ${model} is made available to the general public before ${day(e)}`,
          "the developer's official announcements",
        ),
        tags: [tag("439", "AI")],
      };
    },
    (_r, e) => ({
      text: `Will Starship complete a full orbit on a flight launched before ${day(e)}?`,
      description: yesNo(
        `a SpaceX Starship vehicle completes at least one full orbit of Earth on a flight launched before ${
          day(e)
        }`,
        "SpaceX",
      ),
      tags: [tag("100267", "Space")],
    }),
    (r, e) => {
      const region = pick(r, REGIONS);
      const magnitude = (6 + Math.floor(r() * 15) / 10).toFixed(1);
      return {
        text: `Will a magnitude ${magnitude}+ earthquake hit ${region} by ${day(e)}?`,
        description: yesNo(
          `the USGS reports an earthquake of magnitude ${magnitude} or greater in ${region} by ${day(e)}`,
          "the USGS earthquake catalog",
        ),
      };
    },
    (r, e) => {
      const extent = (9 + Math.floor(r() * 30) / 10).toFixed(1);
      return {
        text: `Will Arctic sea ice extent be below ${extent} million km² on ${day(e)}?`,
        description: yesNo(
          `the NSIDC daily Arctic sea ice extent for ${day(e)} is below ${extent} million square kilometres`,
          "NSIDC",
        ),
        tags: [tag("100273", "Climate")],
      };
    },
    (_r, e) => ({
      text: `Will the WHO declare a new public health emergency of international concern by ${day(e)}?`,
      description: yesNo(`the World Health Organization declares a new PHEIC by ${day(e)}`, "who.int"),
      tags: [tag("1362", "Health")],
    }),
  ],
};

export const TOPICS: readonly Topic[] = [politics, sports, crypto, economics, science];
