//! Hare cards. A hare that lands on a hare cell draws a card and follows it at once. The deck
//! is modelled as independent draws, each card with probability count / deck size (the card goes
//! back under the deck, R08), so a position needs no memory of the cards drawn: the state stays
//! Markov. The 2008 deck's "shuffle" card therefore only collects its carrots.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Every card text of both editions (a card that both print, "your last move costs nothing", is
/// one kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Card {
    // The Ravensburger 2008 deck (R08 p. 5).
    /// "Give every player behind you 10 carrots!" (all of them, or none if you cannot).
    GiveBehind,
    /// "If more players are behind you than ahead, miss a turn; if not, move again."
    AheadOrBehind,
    /// "Bring your carrots to exactly 65."
    SixtyFive,
    /// "Draw 10 carrots for each salad you still have; with none, miss a turn."
    SaladCarrots,
    /// "You lose half your carrots" (an odd half rounded down).
    Halve,
    /// "Your last move costs nothing": the carrots paid for it come back (both editions).
    Refund,
    /// "Show your carrots": nothing changes under perfect information.
    Show,
    /// "Shuffle the hare cards; every other player gives you one carrot."
    Shuffle,
    // The classic deck (1978; texts as printed in 1995).
    /// "Eat a salad at once": as if arrived on a salad cell; with no salad, miss a turn.
    EatSalad,
    /// "Move again at once."
    MoveAgain,
    /// "Move up one place": to the first free cell in front of the nearest hare ahead.
    HurryAhead,
    /// "You may take or give 10 carrots": the hare chooses (1001, 1002, or 0 for neither).
    TakeOrGive,
    /// "Fall back one place": to the first free cell behind the nearest hare behind.
    FallBack,
    /// "Go forward to the next carrot cell" (no effect if it is occupied or there is none).
    NextCarrot,
    /// "Go back to the previous carrot cell" (no effect if it is occupied or there is none).
    PreviousCarrot,
    /// "Miss a turn."
    MissTurn,
}

pub const CARDS: [Card; 16] = [
    Card::GiveBehind,
    Card::AheadOrBehind,
    Card::SixtyFive,
    Card::SaladCarrots,
    Card::Halve,
    Card::Refund,
    Card::Show,
    Card::Shuffle,
    Card::EatSalad,
    Card::MoveAgain,
    Card::HurryAhead,
    Card::TakeOrGive,
    Card::FallBack,
    Card::NextCarrot,
    Card::PreviousCarrot,
    Card::MissTurn,
];

impl Card {
    /// The card's key in a deck table and its chance outcome's name.
    pub fn key(self) -> &'static str {
        match self {
            Card::GiveBehind => "give-behind",
            Card::AheadOrBehind => "ahead-or-behind",
            Card::SixtyFive => "sixty-five",
            Card::SaladCarrots => "salad-carrots",
            Card::Halve => "halve",
            Card::Refund => "refund",
            Card::Show => "show",
            Card::Shuffle => "shuffle",
            Card::EatSalad => "eat-salad",
            Card::MoveAgain => "move-again",
            Card::HurryAhead => "hurry-ahead",
            Card::TakeOrGive => "take-or-give",
            Card::FallBack => "fall-back",
            Card::NextCarrot => "next-carrot",
            Card::PreviousCarrot => "previous-carrot",
            Card::MissTurn => "miss-turn",
        }
    }

    /// The card's number: its chance outcome.
    pub fn index(self) -> usize {
        CARDS.iter().position(|&c| c == self).expect("listed")
    }

    /// What the card says, in English.
    pub fn text(self) -> &'static str {
        match self {
            Card::GiveBehind => "give every hare behind you 10 carrots",
            Card::AheadOrBehind => {
                "more hares behind you than ahead: miss a turn; otherwise move again"
            }
            Card::SixtyFive => "bring your carrots to exactly 65",
            Card::SaladCarrots => "take 10 carrots per salad you hold; with none, miss a turn",
            Card::Halve => "lose half your carrots",
            Card::Refund => "your last move costs nothing",
            Card::Show => "show your carrots",
            Card::Shuffle => "shuffle the hare cards; every other hare gives you a carrot",
            Card::EatSalad => "eat a salad at once",
            Card::MoveAgain => "move again at once",
            Card::HurryAhead => "move up one place",
            Card::TakeOrGive => "you may take or give 10 carrots",
            Card::FallBack => "fall back one place",
            Card::NextCarrot => "go forward to the next carrot cell",
            Card::PreviousCarrot => "go back to the previous carrot cell",
            Card::MissTurn => "miss a turn",
        }
    }
}

/// A deck: how many copies of each card.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deck {
    counts: [u8; CARDS.len()],
}

/// The decks with names.
const NAMED: [&str; 3] = ["2008", "classic", "none"];

impl Deck {
    /// The 2008 deck: 15 cards of 8 texts. R08 does not print the multiplicities; we assume two
    /// of each text and one "shuffle" card.
    pub fn edition_2008() -> Deck {
        let mut d = Deck::none();
        for c in &CARDS[..7] {
            d.counts[c.index()] = 2;
        }
        d.counts[Card::Shuffle.index()] = 1;
        d
    }

    /// The classic 12-card deck, with the multiplicities of one student implementation
    /// (batscs/hase-und-igel; unsourced): two each of "last move free", "take or give 10" and
    /// "fall back", one of each other text.
    pub fn classic() -> Deck {
        let mut d = Deck::none();
        for c in [
            Card::EatSalad,
            Card::MoveAgain,
            Card::HurryAhead,
            Card::NextCarrot,
            Card::PreviousCarrot,
            Card::MissTurn,
        ] {
            d.counts[c.index()] = 1;
        }
        for c in [Card::Refund, Card::TakeOrGive, Card::FallBack] {
            d.counts[c.index()] = 2;
        }
        d
    }

    /// No hare cards: hare cells are plain cells and the game has no chance.
    pub fn none() -> Deck {
        Deck {
            counts: [0; CARDS.len()],
        }
    }

    pub fn named(name: &str) -> Option<Deck> {
        match name {
            "2008" => Some(Deck::edition_2008()),
            "classic" => Some(Deck::classic()),
            "none" => Some(Deck::none()),
            _ => None,
        }
    }

    fn name(&self) -> Option<&'static str> {
        NAMED
            .iter()
            .copied()
            .find(|n| Deck::named(n).as_ref() == Some(self))
    }

    pub fn count(&self, card: Card) -> u8 {
        self.counts[card.index()]
    }

    pub fn size(&self) -> u32 {
        self.counts.iter().map(|&c| u32::from(c)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }

    /// The cards in the deck with their probabilities, in card order.
    pub fn draws(&self) -> impl Iterator<Item = (Card, f64)> + '_ {
        let size = f64::from(self.size());
        CARDS
            .iter()
            .zip(self.counts)
            .filter(|&(_, n)| n > 0)
            .map(move |(&c, n)| (c, f64::from(n) / size))
    }
}

impl Default for Deck {
    fn default() -> Self {
        Deck::edition_2008()
    }
}

impl fmt::Debug for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.name() {
            return f.write_str(name);
        }
        let parts: Vec<String> = CARDS
            .iter()
            .filter(|c| self.count(**c) > 0)
            .map(|c| format!("{} = {}", c.key(), self.count(*c)))
            .collect();
        write!(f, "{{ {} }}", parts.join(", "))
    }
}

/// A named deck is written by its name, any other as a table of card counts.
impl Serialize for Deck {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.name() {
            Some(name) => s.serialize_str(name),
            None => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                for c in CARDS {
                    if self.count(c) > 0 {
                        m.serialize_entry(c.key(), &self.count(c))?;
                    }
                }
                m.end()
            }
        }
    }
}

fn card_keys() -> String {
    CARDS.iter().map(|c| c.key()).collect::<Vec<_>>().join(", ")
}

impl<'de> Deserialize<'de> for Deck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Deck, D::Error> {
        struct DeckVisitor;
        impl<'de> Visitor<'de> for DeckVisitor {
            type Value = Deck;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a deck: \"2008\", \"classic\", \"none\", or a table of card counts ({})",
                    card_keys()
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Deck, E> {
                if v.trim_start().starts_with('{') {
                    // A table written on the command line, as in a config: `{halve = 3}`.
                    let table =
                        toml::from_str::<toml::Table>(&format!("deck = {v}")).map_err(|e| {
                            E::custom(format!(
                                "`{v}` is not a TOML table of card counts such as \
                                 {{halve = 3, refund = 1}}: {}",
                                e.message()
                            ))
                        })?;
                    return table["deck"].clone().try_into::<Deck>().map_err(E::custom);
                }
                Deck::named(v).ok_or_else(|| {
                    E::custom(format!(
                        "unknown deck `{v}`: the decks are \"2008\", \"classic\" and \"none\", or a table of card counts ({})",
                        card_keys()
                    ))
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Deck, A::Error> {
                let mut deck = Deck::none();
                while let Some(key) = map.next_key::<String>()? {
                    let Some(card) = CARDS.iter().find(|c| c.key() == key) else {
                        return Err(de::Error::custom(format!(
                            "unknown hare card `{key}`: the cards are {}",
                            card_keys()
                        )));
                    };
                    let n: i64 = map.next_value()?;
                    deck.counts[card.index()] = u8::try_from(n).map_err(|_| {
                        de::Error::custom(format!("{key} = {n}: a count from 0 to 255"))
                    })?;
                }
                Ok(deck)
            }
        }
        d.deserialize_any(DeckVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decks() {
        assert_eq!(Deck::edition_2008().size(), 15);
        assert_eq!(Deck::classic().size(), 12);
        let p: f64 = Deck::edition_2008().draws().map(|(_, p)| p).sum();
        assert!((p - 1.0).abs() < 1e-12);
        assert_eq!(Deck::edition_2008().draws().count(), 8);
        assert_eq!(Deck::edition_2008().to_string(), "2008");
        let d: Deck = toml::from_str::<toml::Table>("d = { halve = 3, refund = 1 }").unwrap()["d"]
            .clone()
            .try_into()
            .unwrap();
        assert_eq!(d.size(), 4);
        assert_eq!(d.to_string(), "{ halve = 3, refund = 1 }");
        let back: Deck = toml::Value::try_from(d).unwrap().try_into().unwrap();
        assert_eq!(back, d);
        let err = toml::Value::String("1999".into())
            .try_into::<Deck>()
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown deck `1999`"), "{err}");
        // The table form on the command line (a string holding a TOML table).
        let table = toml::Value::String("{halve = 3, refund = 1}".into())
            .try_into::<Deck>()
            .unwrap();
        assert_eq!(table.count(Card::Halve), 3);
        assert_eq!(table.count(Card::Refund), 1);
        assert_eq!(table.size(), 4);
        for (bad, says) in [
            ("{halve = 3", "not a TOML table"),
            ("{halfe = 3}", "unknown hare card `halfe`"),
            ("{halve = 300}", "a count from 0 to 255"),
            ("{halve = \"x\"}", "halve"),
        ] {
            let err = toml::Value::String(bad.into())
                .try_into::<Deck>()
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let err = toml::from_str::<toml::Table>("d = { halfe = 3 }").unwrap()["d"]
            .clone()
            .try_into::<Deck>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown hare card `halfe`") && err.contains("halve"),
            "{err}"
        );
    }
}
