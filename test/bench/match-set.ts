/**
 * The labelled matching set of issue #38: a store of about 1 500 persons from many naming traditions
 * and the queries a spreadsheet sends about them, each labelled with the person it means (or none, for
 * one not in the store). Generated, never stored: a seeded PRNG of its own (no Math.random), so that
 * every run, the bench's and the regression test's, asks the same questions of the same store.
 *
 * Each category plants one kind of variant and is judged on its own criterion (MATCH_CATEGORIES). A
 * query judged by rank 1 is generated only where it is well-posed: no other stored person would be an
 * equally right answer (an initial and last name no one else has, a typo no other name is one edit
 * from, ...), so that a miss is the matcher's, not the set's.
 */
import { normaliseEmail } from '../../lib/domain/email';
import { fold } from '../../lib/domain/text';

/** What a category is judged on: match:true on the right person, the right person first, or no match:true. */
export type Criterion = 'match' | 'rank1' | 'no-match';

// biome-ignore format: a table
export const MATCH_CATEGORIES = [
  { category: 'exact-email', count: 100, criterion: 'match', what: 'stored name and that person\'s email' },
  { category: 'exact-unique', count: 80, criterion: 'match', what: 'a name no one else holds, no email' },
  { category: 'namesake-email', count: 60, criterion: 'match', what: 'a namesake\'s exact name and its email' },
  { category: 'namesake-alone', count: 30, criterion: 'no-match', what: 'a namesake\'s exact name alone: none of them is certain' },
  { category: 'case-spacing', count: 40, criterion: 'match', what: 'a unique name in other case, spaces doubled, leading, trailing' },
  { category: 'accents-dropped', count: 50, criterion: 'match', what: 'a unique name with diacritics (or ø ł ß ı æ đ) written plain' },
  { category: 'email-only', count: 40, criterion: 'match', what: 'the email as the query text, or another name with the email' },
  { category: 'swapped', count: 50, criterion: 'rank1', what: '"Last, First" and "Last First" of a unique name' },
  { category: 'typo', count: 50, criterion: 'rank1', what: 'one edit in a word of 4 or more letters, no email' },
  { category: 'initials', count: 40, criterion: 'rank1', what: '"A. Last" / "A Last", the initial and last name unique' },
  { category: 'nickname', count: 30, criterion: 'rank1', what: 'a nickname for the formal first name (Bill, Hans, Pepe)' },
  { category: 'email-domain', count: 30, criterion: 'rank1', what: 'a unique name and its email\'s local part at another domain' },
  { category: 'absent', count: 60, criterion: 'no-match', what: 'persons not in the store, half with an email no one holds' },
] as const satisfies readonly { category: string; count: number; criterion: Criterion; what: string }[];

export type MatchCategory = (typeof MATCH_CATEGORIES)[number]['category'];

/** A kind of query of a labelled set: its name, how many, its criterion, what it plants. */
export interface CategorySpec {
  category: string;
  count: number;
  criterion: Criterion;
  what: string;
}

export interface MatchPerson {
  tradition: string;
  first: string;
  last: string;
  /** The first is the primary; each unique in the store. */
  emails: string[];
  /** The namesake group it belongs to (persons of exactly the same name), if any. */
  namesakes?: number;
}

export interface MatchQuery {
  /** One of its set's `categories` (this set's: MatchCategory). */
  category: string;
  query: string;
  /** As OpenRefine sends the columns it is told to match on. */
  properties: { pid: 'email' | 'first_name' | 'last_name'; v: string }[];
  /** The index in the population of the person meant, or null: no one in the store, or no one in particular. */
  expected: number | null;
}

export interface MatchSet {
  population: MatchPerson[];
  queries: MatchQuery[];
  /** Its kinds of query, in the order of its queries. */
  categories: readonly CategorySpec[];
}

/** A tradition's names; `surnames: 2` joins two of its last names (Spanish, Portuguese). */
export interface Tradition {
  tradition: string;
  first: readonly string[];
  last: readonly string[];
  surnames?: 2;
}

// biome-ignore format: lists of names
export const TRADITIONS: readonly Tradition[] = [
  { tradition: 'English',
    first: ['William', 'Elizabeth', 'Robert', 'Margaret', 'Richard', 'Katherine', 'James', 'Thomas', 'Michael', 'Jennifer', 'Christopher', 'Anthony', 'Daniel', 'Patricia', 'Edward', 'Charles', 'Susan', 'Rebecca', 'Alexander', 'Victoria', 'Samuel', 'Abigail', 'Benjamin', 'Eleanor', 'Harriet', 'Oliver', 'Amelia', 'Henry'],
    last: ['Smith', 'Johnson', 'Brown', 'Taylor', 'Wilson', 'Davies', 'Evans', 'Roberts', 'Walker', 'Wright', 'Robinson', 'Thompson', 'White', 'Hughes', 'Edwards', 'Green', 'Hall', 'Wood', 'Harris', 'Clarke', 'Jackson', 'Turner', 'Hill', 'Cooper', 'Ward', 'Morris', 'Baker', 'Lovelace', 'Hopper', 'Pemberton'] },
  { tradition: 'German',
    first: ['Johannes', 'Friedrich', 'Wolfgang', 'Margarete', 'Elisabeth', 'Josef', 'Katharina', 'Christoph', 'Jürgen', 'Günther', 'Jörg', 'Ursula', 'Brigitte', 'Dieter', 'Heinrich', 'Sabine', 'Petra', 'Andreas', 'Stefanie', 'Lukas', 'Tobias', 'Annelie', 'Ingeborg', 'Wilhelm', 'Gertrud', 'Bärbel', 'Uwe'],
    last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weiß', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Schäfer', 'Koch', 'Bauer', 'Richter', 'Klein', 'Schröder', 'Neumann', 'Schwarz', 'Zimmermann', 'Braun', 'Krüger', 'Hartmann', 'Lange', 'Werner', 'Krause', 'Lehmann', 'Groß', 'Strauß', 'Köhler', 'Nußbaum', 'Großmann'] },
  { tradition: 'French',
    first: ['Jean-Pierre', 'Hélène', 'François', 'Élodie', 'Stéphane', 'Amélie', 'Benoît', 'Céline', 'Jérôme', 'Gaëlle', 'Raphaël', 'Noël', 'Zoé', 'Chloé', 'Mathéo', 'Léa', 'Théo', 'Agnès', 'Frédéric', 'Béatrice', 'Sébastien', 'Thérèse', 'Marcel', 'Camille', 'Yves', 'Aurélien', 'Maëlle'],
    last: ['Dubois', 'Lefèvre', 'Moreau', 'Girard', 'Fournier', 'Mercier', 'Rousseau', 'Bonnet', 'Lambert', 'Fontaine', 'Chevalier', 'Garnier', 'Faure', 'Rivière', 'Barbier', 'Bérenger', 'Delacroix', 'Lemaître', 'Bénard', 'Marchand', 'Duval', 'Dupré', 'Gauthier', 'Perrin', 'Deschênes', 'Lacôte', 'Beaulieu'] },
  { tradition: 'Spanish', surnames: 2,
    first: ['José', 'Francisco', 'Ignacio', 'Guadalupe', 'Dolores', 'Enrique', 'Concepción', 'Manuel', 'Jesús', 'Rosario', 'María José', 'Juan Carlos', 'Alejandro', 'Lucía', 'Sofía', 'Andrés', 'Inés', 'Ramón', 'Begoña', 'Íñigo', 'Ángel', 'Mercedes', 'Pilar', 'Nuria', 'Álvaro', 'Carmen', 'Raúl'],
    last: ['García', 'Fernández', 'González', 'Rodríguez', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Jiménez', 'Ruiz', 'Hernández', 'Díaz', 'Moreno', 'Muñoz', 'Álvarez', 'Romero', 'Navarro', 'Torres', 'Domínguez', 'Vázquez', 'Ramos', 'Serrano', 'Blanco', 'Molina', 'Ortega', 'Delgado', 'Castro', 'Iglesias', 'Peña'] },
  { tradition: 'Portuguese', surnames: 2,
    first: ['João', 'Luís', 'Gonçalo', 'Conceição', 'Sebastião', 'Fernão', 'Tomás', 'Beatriz', 'Leonor', 'Margarida', 'Rodrigo', 'Afonso', 'Duarte', 'Catarina', 'Mariana', 'Vasco', 'Simão', 'Matilde', 'Graça', 'António', 'Joaquim', 'Raquel', 'Thiago', 'Letícia', 'Vinícius', 'Caio'],
    last: ['Silva', 'Santos', 'Ferreira', 'Pereira', 'Oliveira', 'Costa', 'Rodrigues', 'Martins', 'Sousa', 'Fernandes', 'Gonçalves', 'Gomes', 'Lopes', 'Marques', 'Alves', 'Almeida', 'Ribeiro', 'Pinto', 'Carvalho', 'Teixeira', 'Moreira', 'Correia', 'Mendes', 'Nunes', 'Soares', 'Vieira', 'Magalhães', 'Guimarães', 'Araújo'] },
  { tradition: 'Italian',
    first: ['Giuseppe', 'Giovanni', 'Francesca', 'Alessandro', 'Chiara', 'Lorenzo', 'Giulia', 'Matteo', 'Federica', 'Niccolò', 'Elisa', 'Stefano', 'Valentina', 'Luca', 'Martina', 'Marco', 'Paola', 'Andrea', 'Simona', 'Davide', 'Ilaria', 'Fabrizio', 'Gianluca', 'Raffaella', 'Domenico'],
    last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti', 'De Luca', 'Mancini', 'Giordano', 'Rizzo', 'Lombardi', 'Moretti', 'Barbieri', 'Fontana', 'Santoro', 'Mariani', 'Rinaldi', 'Caruso', 'Ferrara', 'Galli', 'Martini', 'Leone', 'Longo', 'Gentile', "D'Angelo"] },
  { tradition: 'Dutch',
    first: ['Jan', 'Pieter', 'Willem', 'Sanne', 'Anouk', 'Bram', 'Daan', 'Femke', 'Joost', 'Lotte', 'Maarten', 'Niels', 'Ruud', 'Sjoerd', 'Thijs', 'Wouter', 'Eline', 'Ineke', 'Marloes', 'Geert', 'Hendrik', 'Kees', 'Floor', 'Noor', 'Ilse', 'Joris'],
    last: ['de Vries', 'van der Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Leeuwen', 'Dekker', 'Brouwer', 'de Wit', 'Dijkstra', 'Smits', 'de Graaf', 'van der Meer', 'van der Linden', 'Kok', 'Jacobs', 'de Haan', 'Vermeulen', 'van den Heuvel', 'van der Veen', 'Verhoeven', 'van Beek'] },
  { tradition: 'Polish',
    first: ['Łukasz', 'Paweł', 'Michał', 'Wojciech', 'Krzysztof', 'Małgorzata', 'Agnieszka', 'Katarzyna', 'Grzegorz', 'Przemysław', 'Bożena', 'Józef', 'Stanisław', 'Zbigniew', 'Jadwiga', 'Elżbieta', 'Mirosław', 'Jarosław', 'Bartłomiej', 'Dorota', 'Joanna', 'Tomasz', 'Aleksandra', 'Zofia', 'Władysław', 'Wiesława'],
    last: ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak', 'Dąbrowski', 'Kozłowski', 'Jankowski', 'Mazur', 'Kwiatkowski', 'Krawczyk', 'Piotrowski', 'Grabowski', 'Nowakowski', 'Pawłowski', 'Michalski', 'Król', 'Wieczorek', 'Jabłoński', 'Wróbel', 'Żak', 'Żółkiewski', 'Łęcki', 'Ślęzak', 'Gałązka'] },
  { tradition: 'Czech',
    first: ['Jiří', 'Jan', 'Petr', 'Josef', 'Pavel', 'Tomáš', 'Jaroslav', 'Miroslav', 'Zdeněk', 'Václav', 'Lenka', 'Jana', 'Kateřina', 'Hana', 'Markéta', 'Lucie', 'Věra', 'Alena', 'Radek', 'Ondřej', 'Vojtěch', 'Dominika', 'Tereza', 'Bořivoj', 'Přemysl'],
    last: ['Novák', 'Svoboda', 'Novotný', 'Dvořák', 'Černý', 'Procházka', 'Kučera', 'Veselý', 'Horák', 'Němec', 'Pokorný', 'Marek', 'Pospíšil', 'Hájek', 'Král', 'Jelínek', 'Růžička', 'Beneš', 'Fiala', 'Sedláček', 'Doležal', 'Zeman', 'Kolář', 'Navrátil', 'Čermák', 'Šťastný', 'Říha'] },
  { tradition: 'Serbian/Croatian',
    first: ['Đorđe', 'Ljubica', 'Dragan', 'Zoran', 'Milica', 'Nikola', 'Jelena', 'Bojan', 'Snežana', 'Goran', 'Dušan', 'Vesna', 'Branislav', 'Ivana', 'Nenad', 'Dejan', 'Tomislav', 'Željko', 'Mirjana', 'Stjepan', 'Ante', 'Nataša', 'Živko', 'Đurđica', 'Radovan', 'Ljiljana'],
    last: ['Petrović', 'Jovanović', 'Marković', 'Đorđević', 'Stojanović', 'Popović', 'Živković', 'Janković', 'Pavlović', 'Milosavljević', 'Horvat', 'Kovačević', 'Babić', 'Marić', 'Jurić', 'Novaković', 'Knežević', 'Vuković', 'Perić', 'Tomić', 'Božić', 'Radić', 'Kovač', 'Šarić', 'Lukić', 'Ćosić', 'Đukić', 'Mlađenović'] },
  { tradition: 'Turkish',
    first: ['Ayşe', 'Fatma', 'Emine', 'Hatice', 'Zeynep', 'Elif', 'Mehmet', 'Mustafa', 'Ahmet', 'Hüseyin', 'Hasan', 'İbrahim', 'İsmail', 'Yusuf', 'Ömer', 'Murat', 'Özlem', 'Gülşen', 'Çağrı', 'Şükrü', 'Tuğba', 'Işıl', 'Barış', 'Gökhan', 'Ilgın', 'Sıla'],
    last: ['Yılmaz', 'Kaya', 'Demir', 'Şahin', 'Çelik', 'Yıldız', 'Yıldırım', 'Öztürk', 'Aydın', 'Özdemir', 'Arslan', 'Doğan', 'Kılıç', 'Aslan', 'Çetin', 'Kara', 'Koç', 'Kurt', 'Özkan', 'Şimşek', 'Polat', 'Korkmaz', 'Karaoğlu', 'Hacıoğlu', 'Kocaoğlu', 'Eminoğlu', 'Akgül', 'Erdoğan', 'Güneş', 'Aksoy', 'Işık'] },
  { tradition: 'Danish/Norwegian',
    first: ['Søren', 'Jørgen', 'Bjørn', 'Ørjan', 'Kjersti', 'Åse', 'Mads', 'Frederik', 'Mette', 'Sigrid', 'Astrid', 'Torbjørn', 'Håkon', 'Gudrun', 'Kåre', 'Sølvi', 'Rasmus', 'Anders', 'Lærke', 'Trine', 'Henrik', 'Kirsten', 'Øystein', 'Åsmund', 'Dagny', 'Nils'],
    last: ['Jørgensen', 'Sørensen', 'Hansen', 'Nielsen', 'Pedersen', 'Andersen', 'Christensen', 'Larsen', 'Rasmussen', 'Mortensen', 'Kjær', 'Østergaard', 'Bækgaard', 'Søndergaard', 'Møller', 'Dahl', 'Haugen', 'Bakke', 'Solberg', 'Strøm', 'Lie', 'Ødegård', 'Aasen', 'Bråten', 'Nygård', 'Hægeland', 'Frøland', 'Kværne'] },
  { tradition: 'Swedish',
    first: ['Åsa', 'Björn', 'Göran', 'Märta', 'Örjan', 'Lars', 'Karin', 'Sven', 'Ingrid', 'Agneta', 'Birgitta', 'Magnus', 'Gunnar', 'Linnéa', 'Ebba', 'Elsa', 'Maja', 'Olle', 'Stina', 'Ulf', 'Åke', 'Jöns', 'Sölve', 'Håkan', 'Göte', 'Kerstin'],
    last: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Pettersson', 'Jonsson', 'Lindberg', 'Lindström', 'Lindqvist', 'Engström', 'Bergström', 'Lundgren', 'Sjöberg', 'Åberg', 'Öberg', 'Ström', 'Hedlund', 'Holmgren', 'Wallin', 'Nyström', 'Ekström', 'Sandström', 'Blomqvist', 'Åkesson'] },
  { tradition: 'Hungarian',
    first: ['Zoltán', 'László', 'István', 'Gábor', 'Ferenc', 'Sándor', 'Attila', 'Péter', 'Tamás', 'Zsolt', 'Erzsébet', 'Katalin', 'Ildikó', 'Zsuzsanna', 'Ágnes', 'Éva', 'Judit', 'Krisztina', 'Anikó', 'Gyöngyi', 'Orsolya', 'Bálint', 'Levente', 'Csaba', 'Győző', 'Tünde', 'Réka'],
    last: ['Nagy', 'Kovács', 'Tóth', 'Szabó', 'Horváth', 'Varga', 'Kiss', 'Molnár', 'Németh', 'Farkas', 'Balogh', 'Papp', 'Takács', 'Juhász', 'Lakatos', 'Mészáros', 'Oláh', 'Rácz', 'Fekete', 'Szűcs', 'Győri', 'Bíró', 'Vörös', 'Kőszegi', 'Szőke', 'Fülöp', 'Halász', 'Bodnár', 'Pintér'] },
  { tradition: 'Greek',
    first: ['Georgios', 'Konstantinos', 'Dimitrios', 'Ioannis', 'Nikolaos', 'Panagiotis', 'Vasileios', 'Christos', 'Athanasios', 'Evangelos', 'Eleni', 'Aikaterini', 'Vasiliki', 'Angeliki', 'Dimitra', 'Georgia', 'Paraskevi', 'Eirini', 'Theodora', 'Stavros', 'Spyridon', 'Kyriakos', 'Anastasia', 'Despina', 'Chrysoula'],
    last: ['Papadopoulos', 'Papadakis', 'Georgiou', 'Nikolaidis', 'Konstantinidis', 'Papanikolaou', 'Oikonomou', 'Karagiannis', 'Vlachos', 'Makris', 'Dimitriou', 'Ioannou', 'Alexiou', 'Christodoulou', 'Antoniou', 'Pappas', 'Athanasiou', 'Georgiadis', 'Kostopoulos', 'Theodorou', 'Michailidis', 'Panagiotopoulos', 'Vasileiou', 'Angelopoulos', 'Lambrou', 'Kyriakidis', 'Raptis'] },
  { tradition: 'Arabic',
    first: ['Mohammed', 'Ahmed', 'Omar', 'Youssef', 'Khalid', 'Hassan', 'Hussein', 'Ibrahim', 'Tariq', 'Karim', 'Samir', 'Nabil', 'Fatima', 'Aisha', 'Khadija', 'Mariam', 'Layla', 'Nour', 'Yasmin', 'Rania', 'Salma', 'Huda', 'Amira', 'Zainab', 'Abdullah', 'Walid'],
    last: ['Al-Masri', 'Haddad', 'Khoury', 'Nasser', 'Hamdan', 'Saleh', 'Mansour', 'El-Sayed', 'Khalil', 'Darwish', 'Aziz', 'Rahman', 'Al-Farsi', 'Bakr', 'Hashem', 'Jaber', 'Awad', 'Suleiman', 'Shaheen', 'Ghanem', 'Barakat', 'Yassin', 'Othman', 'Zaki', 'Al-Amin', 'Sabbagh', 'Tahan'] },
  { tradition: 'Indian',
    first: ['Aarav', 'Priya', 'Rajesh', 'Sunita', 'Amit', 'Anjali', 'Vikram', 'Deepika', 'Rahul', 'Kavya', 'Arjun', 'Lakshmi', 'Suresh', 'Pooja', 'Sanjay', 'Meera', 'Venkatesh', 'Divya', 'Karthik', 'Nandini', 'Harish', 'Shreya', 'Ravi', 'Aishwarya', 'Gopal', 'Ananya', 'Srinivas', 'Jyoti'],
    last: ['Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta', 'Reddy', 'Iyer', 'Nair', 'Menon', 'Rao', 'Joshi', 'Mehta', 'Chatterjee', 'Banerjee', 'Mukherjee', 'Das', 'Pillai', 'Verma', 'Agarwal', 'Desai', 'Kulkarni', 'Bhattacharya', 'Chaudhary', 'Malhotra', 'Kapoor', 'Srinivasan', 'Subramanian', 'Krishnan', 'Venkataraman', 'Ghosh'] },
  { tradition: 'Chinese',
    first: ['Wei', 'Fang', 'Na', 'Min', 'Jing', 'Lei', 'Yan', 'Jun', 'Hui', 'Yong', 'Xiaoming', 'Jianguo', 'Mei', 'Tao', 'Ping', 'Xin', 'Yu', 'Hao', 'Qiang', 'Ying', 'Lan', 'Jie', 'Bo', 'Zhiwei', 'Xiuying', 'Guiying', 'Haoran', 'Yuxuan'],
    last: ['Li', 'Wang', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sun', 'Ma', 'Zhu', 'Hu', 'Guo', 'He', 'Lin', 'Gao', 'Luo', 'Zheng', 'Liang', 'Xie', 'Song', 'Tang', 'Han', 'Feng', 'Deng', 'Cao', 'Peng'] },
  { tradition: 'Japanese',
    first: ['Hiroshi', 'Takeshi', 'Kenji', 'Yuki', 'Haruto', 'Sakura', 'Yui', 'Aoi', 'Daiki', 'Kaito', 'Riku', 'Emi', 'Akiko', 'Yoko', 'Keiko', 'Naoko', 'Shota', 'Ren', 'Sota', 'Yuto', 'Haruka', 'Misaki', 'Tomoko', 'Kazuo', 'Ichiro', 'Shōhei', 'Yūko'],
    last: ['Satō', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Itō', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Katō', 'Yoshida', 'Yamada', 'Sasaki', 'Yamaguchi', 'Matsumoto', 'Inoue', 'Kimura', 'Hayashi', 'Shimizu', 'Yamazaki', 'Mori', 'Abe', 'Ikeda', 'Hashimoto', 'Ishikawa', 'Ogawa', 'Okada', 'Maeda', 'Fujita', 'Gotō', 'Ōtani', 'Endō'] },
  { tradition: 'Korean',
    first: ['Min-jun', 'Seo-yeon', 'Ji-ho', 'Ha-eun', 'Do-yoon', 'Ji-woo', 'Seo-jun', 'Su-bin', 'Ye-jin', 'Hyun-woo', 'Ji-hoon', 'Eun-ji', 'Sung-min', 'Young-ho', 'Mi-kyung', 'Jae-won', 'Hye-jin', 'Dong-hyun', 'Kyung-soo', 'Soo-ah', 'Tae-yang', 'Yu-na', 'Jin', 'Hoon'],
    last: ['Kim', 'Lee', 'Park', 'Choi', 'Jung', 'Kang', 'Cho', 'Yoon', 'Jang', 'Lim', 'Oh', 'Seo', 'Shin', 'Kwon', 'Hwang', 'Ahn', 'Yoo', 'Hong', 'Jeon', 'Ko', 'Moon', 'Son', 'Baek', 'Heo', 'Nam', 'Shim', 'Noh'] },
  { tradition: 'Vietnamese',
    first: ['Văn An', 'Thị Lan', 'Văn Minh', 'Thị Hương', 'Đức Anh', 'Thị Mai', 'Quốc Bảo', 'Thị Thu', 'Văn Hùng', 'Minh Tuấn', 'Thị Hoa', 'Hoàng Nam', 'Thanh Hà', 'Ngọc Ánh', 'Văn Long', 'Thị Ngọc', 'Hữu Phước', 'Thị Hằng', 'Xuân Trường', 'Thị Phương', 'Công Vinh', 'Bảo Châu', 'Gia Huy', 'Khánh Linh'],
    last: ['Nguyễn', 'Trần', 'Lê', 'Phạm', 'Hoàng', 'Huỳnh', 'Phan', 'Vũ', 'Võ', 'Đặng', 'Bùi', 'Đỗ', 'Hồ', 'Ngô', 'Dương', 'Lý', 'Trịnh', 'Đinh', 'Lâm', 'Tô', 'Trương', 'Lương'] },
  { tradition: 'Yoruba',
    first: ['Adéwálé', 'Olúwaseun', 'Fúnmiláyọ̀', 'Olúwadámilọ́lá', 'Tèmítọ́pẹ́', 'Babátúndé', 'Ayọ̀délé', 'Kẹ́hìndé', 'Táíwò', 'Bọ́lá', 'Olúmídé', 'Ìyábọ̀', 'Ọláolúwa', 'Yétúndé', 'Kúnlé', 'Sẹ̀gun', 'Títílayọ̀', 'Fọlákẹ́', 'Tunde', 'Bisola', 'Damilola', 'Oluwatobi'],
    last: ['Adébáyọ̀', 'Ọ̀ṣúntókun', 'Adéyẹmí', 'Ògúnlèyé', 'Akínwùmí', 'Ọláníyàn', 'Bámidélé', 'Olúwọlé', 'Adéṣínà', 'Àjàyí', 'Ṣóyínká', 'Ọbásanjọ́', 'Adékúnlé', 'Fáṣọlá', 'Àlàbí', 'Ìdòwú', 'Akíntọ́lá', 'Adeyemi', 'Ogunleye', 'Balogun', 'Adebayo'] },
  { tradition: 'Igbo',
    first: ['Chinedu', 'Chiamaka', 'Ngozi', 'Emeka', 'Obinna', 'Chukwuemeka', 'Nkechi', 'Ifeoma', 'Uchenna', 'Chidi', 'Adaeze', 'Nnamdi', 'Ikenna', 'Chinwe', 'Ebere', 'Kelechi', 'Amaka', 'Obiageli', 'Chimamanda', 'Ọbiọma', 'Ụchechukwu'],
    last: ['Okafor', 'Okonkwo', 'Eze', 'Nwosu', 'Okeke', 'Obi', 'Nwachukwu', 'Onyeka', 'Chukwu', 'Ibekwe', 'Okoro', 'Nnaji', 'Uzoma', 'Ezeani', 'Anyanwu', 'Adichie', 'Achebe', 'Nwankwo', 'Ogbu', 'Ugwu', 'Ike'] },
];

/**
 * Nicknames of formal first names of the English, German and Spanish lists: a query may say "Bill
 * Turner" of William Turner. None is a first name of any list (checked below), so such a query never
 * names a stored person exactly.
 */
// biome-ignore format: a table
export const NICKNAMES: Record<string, readonly string[]> = {
  William: ['Bill', 'Will', 'Billy'], Elizabeth: ['Liz', 'Beth', 'Betty'], Robert: ['Bob', 'Rob', 'Bobby'],
  Margaret: ['Maggie', 'Peggy'], Richard: ['Dick', 'Rick'], Katherine: ['Kate', 'Kathy'], James: ['Jim', 'Jimmy'],
  Thomas: ['Tom', 'Tommy'], Michael: ['Mike', 'Mick'], Jennifer: ['Jen', 'Jenny'], Christopher: ['Chris'],
  Anthony: ['Tony'], Daniel: ['Dan', 'Danny'], Patricia: ['Pat', 'Patty'], Edward: ['Ed', 'Ted'],
  Charles: ['Charlie', 'Chuck'], Susan: ['Sue', 'Susie'], Rebecca: ['Becky'], Alexander: ['Alex', 'Sandy'],
  Victoria: ['Vicky'], Samuel: ['Sam'], Abigail: ['Abby'], Benjamin: ['Ben'], Henry: ['Harry', 'Hank'],
  Johannes: ['Hans'], Friedrich: ['Fritz'], Wolfgang: ['Wolf'], Margarete: ['Grete'], Elisabeth: ['Liesl'],
  Josef: ['Sepp'], Katharina: ['Kathi'], Christoph: ['Chris'], Heinrich: ['Heinz'], Wilhelm: ['Willi'],
  Andreas: ['Andi'], Tobias: ['Tobi'], Stefanie: ['Steffi'], Gertrud: ['Trude'], Ursula: ['Uschi'],
  José: ['Pepe'], Francisco: ['Paco', 'Pancho'], Ignacio: ['Nacho'], Guadalupe: ['Lupe'], Dolores: ['Lola'],
  Enrique: ['Quique'], Concepción: ['Concha'], Manuel: ['Manolo'], Jesús: ['Chucho'], Rosario: ['Charo'],
  Mercedes: ['Merche'], Pilar: ['Pili'],
};
const NICKNAME_TRADITIONS = new Set(['English', 'German', 'Spanish']);

/** Names of persons who are not in the store: their queries must find no certain match. */
// biome-ignore format: lists of names
const ABSENT_ONLY = {
  first: ['Quentin', 'Ottilie', 'Wenzel', 'Ximena', 'Radomir', 'Ingvild', 'Tsubasa', 'Oyelaran', 'Zhenya', 'Bartholomew'],
  last: ['Featherstonehaugh', 'Quackenbush', 'Wrzesniewski', 'Vandersloot', 'Tchaikovsky', 'Oyelowo', 'Zabłocki', 'Ishiguro', 'Marchetti', 'Lindqvist-Öhman'],
};

if (
  TRADITIONS.some(({ first }) =>
    first.some((name) =>
      Object.values(NICKNAMES).some((nicks) => nicks.some((nick) => fold(nick) === fold(name))),
    ),
  )
)
  throw new Error('A nickname is a first name of a list: its query could name a stored person exactly');

export const DOMAINS = [
  'example.org',
  'example.com',
  'example.net',
  'mail.example',
  'post.example.org',
  'uni.example.edu',
  'firma.example.de',
  'correo.example.es',
] as const;

/** The set's seed: change it and every figure of the bench changes. */
export const MATCH_SEED = 38;
/** Persons of unique names per tradition, and the namesake groups (2 or 3 persons each). */
const PER_TRADITION = 59;
const NAMESAKE_GROUPS = 60;

// --- Randomness ---------------------------------------------------------------------------------

/** mulberry32: a small, fast, seeded PRNG, 0 ≤ x < 1. */
export const mulberry32 = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export type Random = () => number;

/** A random stream of its own per name, so a change to one category leaves the others' queries alone. */
export const streamOf = (seed: number, name: string): Random => {
  let hash = seed >>> 0;
  for (const character of name) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619) >>> 0;
  return mulberry32(hash);
};

export const pickOf = <T>(random: Random, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)] as T;

export const shuffled = <T>(random: Random, list: readonly T[]): T[] => {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
};

// --- Text ---------------------------------------------------------------------------------------

export const fullnameOf = ({ first, last }: { first: string; last: string }) => `${first} ${last}`;

/** Letters Unicode does not decompose, written as a keyboard without them would. */
const PLAIN_LETTERS: Record<string, string> = {
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  ß: 'ss',
  ı: 'i',
  æ: 'ae',
  Æ: 'Ae',
  đ: 'd',
  Đ: 'D',
  œ: 'oe',
  ð: 'd',
  þ: 'th',
};

/** The text with its accents dropped and its special letters written plain: "Søren Dvořák" → "Soren Dvorak". */
export const plainOf = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[øØłŁßıæÆđĐœðþ]/gu, (letter) => PLAIN_LETTERS[letter] ?? letter)
    .normalize('NFC');

/** The ASCII local part of an email from a name: "Đorđe" → "dorde", "van der Berg" → "vanderberg". */
export const slugOf = (text: string) => fold(text).replace(/[^a-z0-9]/g, '');

/** True when two strings are at most one edit apart (substitution, deletion, insertion, transposition). */
export const withinOneEdit = (a: string, b: string): boolean => {
  if (a === b) return true;
  const x = Array.from(a);
  const y = Array.from(b);
  if (Math.abs(x.length - y.length) > 1) return false;
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  const rest = (from: string[], at: number) => from.slice(at).join('');
  if (x.length === y.length)
    return (
      rest(x, start + 1) === rest(y, start + 1) ||
      (x[start] === y[start + 1] && x[start + 1] === y[start] && rest(x, start + 2) === rest(y, start + 2))
    );
  return x.length > y.length ? rest(x, start + 1) === rest(y, start) : rest(x, start) === rest(y, start + 1);
};

// --- The store ----------------------------------------------------------------------------------

/** The person's wire body, as a spreadsheet's import would POST it. */
export const personBodyOf = ({ first, last, emails }: MatchPerson) => ({
  Names: { '@set': [{ first_name: first, last_name: last }] },
  Emails: { '@set': emails.map((email) => ({ email })) },
});

const drawName = (random: Random, { first, last, surnames }: Tradition) => ({
  first: pickOf(random, first),
  last:
    surnames === 2
      ? [...new Set([pickOf(random, last), pickOf(random, last)])].join(' ')
      : pickOf(random, last),
});

/** A name of the tradition no one has yet (by its folded fullname), which it then has. */
const freshName = (random: Random, tradition: Tradition, taken: Set<string>) => {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const name = drawName(random, tradition);
    const folded = fold(fullnameOf(name));
    if (!taken.has(folded)) {
      taken.add(folded);
      return name;
    }
  }
  throw new Error(`No fresh ${tradition.tradition} name left`);
};

/** An address of the person's name no one holds yet: `first.last@`, `flast@`, then with digits. */
const freshEmail = (random: Random, { first, last }: { first: string; last: string }, taken: Set<string>) => {
  const f = slugOf(first);
  const l = slugOf(last);
  const locals =
    random() < 0.6 ? [`${f}.${l}`, `${f.slice(0, 1)}${l}`] : [`${f.slice(0, 1)}${l}`, `${f}.${l}`];
  for (let attempt = 0; ; attempt++) {
    const local = attempt < 2 ? locals[attempt] : `${locals[0]}${attempt}`;
    for (const domain of shuffled(random, DOMAINS)) {
      const email = `${local}@${domain}`;
      if (!taken.has(email)) {
        taken.add(email);
        return email;
      }
    }
  }
};

const populationOf = (seed: number, names: Set<string>, emails: Set<string>): MatchPerson[] => {
  const random = streamOf(seed, 'population');
  const persons: Omit<MatchPerson, 'emails'>[] = [];
  for (const tradition of TRADITIONS)
    for (let n = 0; n < PER_TRADITION; n++)
      persons.push({ tradition: tradition.tradition, ...freshName(random, tradition, names) });
  for (let group = 0; group < NAMESAKE_GROUPS; group++) {
    const tradition = TRADITIONS[group % TRADITIONS.length] as Tradition;
    const name = freshName(random, tradition, names);
    const size = random() < 0.5 ? 2 : 3;
    for (let n = 0; n < size; n++)
      persons.push({ tradition: tradition.tradition, ...name, namesakes: group });
  }
  // Ids follow this order: a namesake is not the next id of its namesake, nor a tradition a run of ids.
  return shuffled(random, persons).map((person) => ({
    ...person,
    emails: Array.from({ length: random() < 1 / 6 ? 2 : 1 }, () => freshEmail(random, person, emails)),
  }));
};

// --- The queries --------------------------------------------------------------------------------

/** What the query generators know of the store. */
interface Store {
  population: MatchPerson[];
  /** Folded fullname → indexes of the persons holding it. */
  holders: Map<string, number[]>;
  emails: Set<string>;
  /** Folded "initial last" → how many persons. */
  initials: Map<string, number>;
}

const storeOf = (population: MatchPerson[]): Store => {
  const holders = new Map<string, number[]>();
  const initials = new Map<string, number>();
  population.forEach((person, index) => {
    const name = fold(fullnameOf(person));
    holders.set(name, [...(holders.get(name) ?? []), index]);
    const initial = initialKey(person);
    initials.set(initial, (initials.get(initial) ?? 0) + 1);
  });
  return { population, holders, emails: new Set(population.flatMap(({ emails }) => emails)), initials };
};

const initialKey = ({ first, last }: { first: string; last: string }) =>
  `${Array.from(fold(first))[0]} ${fold(last)}`;

const isUnique = (store: Store, index: number) =>
  store.holders.get(fold(fullnameOf(store.population[index] as MatchPerson)))?.length === 1;

/** A text that folds to no stored name. */
const namesNoOne = (store: Store, text: string) => !store.holders.has(fold(text));

const email = (v: string) => ({ pid: 'email' as const, v });

type Generate = (
  index: number,
  random: Random,
  store: Store,
) => Omit<MatchQuery, 'category' | 'expected'> | null;

/** Up to `count` queries: persons in random order, each tried once, those `generate` declines skipped. */
const queriesOf = (
  category: MatchCategory,
  count: number,
  store: Store,
  seed: number,
  eligible: (index: number) => boolean,
  generate: Generate,
): MatchQuery[] => {
  const random = streamOf(seed, category);
  const candidates = shuffled(random, store.population.map((_, index) => index).filter(eligible));
  const queries: MatchQuery[] = [];
  for (const index of candidates) {
    if (queries.length === count) break;
    const query = generate(index, random, store);
    if (query) queries.push({ category, ...query, expected: index });
  }
  if (queries.length < count) throw new Error(`Only ${queries.length} ${category} queries of ${count}`);
  return queries;
};

const CASE_SPACING: ((text: string) => string)[] = [
  (text) => text.toUpperCase().split(' ').join('  '),
  (text) => `  ${text.toLowerCase()} `,
  (text) => ` ${text.toUpperCase()}   `,
  (text) => `${text.toLowerCase().split(' ').join('   ')}  `,
];

/** Letters whose plain form is no accent dropped but another letter (the issue names them). */
export const SPECIAL_LETTERS = ['ø', 'ł', 'ß', 'ı', 'æ', 'đ'] as const;

/** One random edit of one word of 4 letters or more: substitution, deletion, insertion or transposition. */
const typoOf = (random: Random, text: string, kind: number): string | null => {
  const words = text.split(' ');
  const long = words
    .map((word, at) => ({ word, at }))
    .filter(({ word }) => Array.from(fold(word)).filter((c) => /\p{L}/u.test(c)).length >= 4);
  if (long.length === 0) return null;
  const { word, at } = pickOf(random, long);
  const letters = Array.from(word);
  const positions = letters.flatMap((letter, i) => (/\p{L}/u.test(letter) ? [i] : []));
  const i = pickOf(random, positions);
  const letter = String.fromCharCode(97 + Math.floor(random() * 26));
  const edited = [...letters];
  if (kind === 0) edited[i] = letter;
  else if (kind === 1) edited.splice(i, 1);
  else if (kind === 2) edited.splice(i, 0, letter);
  else {
    const j = positions[positions.indexOf(i) + 1];
    if (j === undefined) return null;
    [edited[i], edited[j]] = [edited[j] as string, edited[i] as string];
  }
  return [...words.slice(0, at), edited.join(''), ...words.slice(at + 1)].join(' ');
};

const NICKNAMES_OF = new Map(Object.entries(NICKNAMES));
/** Nickname → the formal names it may stand for. */
const FORMAL_OF = new Map<string, string[]>();
for (const [formal, nicks] of NICKNAMES_OF)
  for (const nick of nicks) FORMAL_OF.set(nick, [...(FORMAL_OF.get(nick) ?? []), formal]);

const absentQueries = (store: Store, seed: number, names: Set<string>): MatchQuery[] => {
  const random = streamOf(seed, 'absent');
  const count = MATCH_CATEGORIES.find(({ category }) => category === 'absent')?.count ?? 0;
  const queries: MatchQuery[] = [];
  for (let n = 0; n < count; n++) {
    const tradition = TRADITIONS[n % TRADITIONS.length] as Tradition;
    // Most share a first or a last name with stored persons; one in four is of names no one has.
    const name =
      n % 4 === 3
        ? freshName(
            random,
            {
              tradition: 'absent',
              first: [...ABSENT_ONLY.first, ...tradition.first],
              last: ABSENT_ONLY.last,
            },
            names,
          )
        : freshName(random, tradition, names);
    queries.push({
      category: 'absent',
      query: fullnameOf(name),
      properties: n % 2 === 0 ? [email(freshEmail(random, name, store.emails))] : [],
      expected: null,
    });
  }
  return queries;
};

/** The store and every query about it, in the order of MATCH_CATEGORIES. Pure: the same for a seed. */
export const matchSet = (seed = MATCH_SEED): MatchSet => {
  const names = new Set<string>();
  const population = populationOf(seed, names, new Set());
  const store = storeOf(population);
  const person = (index: number) => population[index] as MatchPerson;
  const unique = (index: number) => isUnique(store, index);
  const counts = Object.fromEntries(
    MATCH_CATEGORIES.map(({ category, count }) => [category, count]),
  ) as Record<MatchCategory, number>;
  const of = (category: MatchCategory, eligible: (index: number) => boolean, generate: Generate) =>
    queriesOf(category, counts[category], store, seed, eligible, generate);
  // Accents: four persons of each special letter first, so that each is in the set, then any accent.
  const accented = (index: number) =>
    unique(index) && plainOf(fullnameOf(person(index))) !== fullnameOf(person(index));
  const plain: Generate = (i) => ({ query: plainOf(fullnameOf(person(i))), properties: [] });
  const accents: MatchQuery[] = [];
  const chosen = (index: number) => accents.some(({ expected }) => expected === index);
  for (const letter of SPECIAL_LETTERS)
    accents.push(
      ...queriesOf(
        'accents-dropped',
        4,
        store,
        seed,
        // Lower-cased, Ø is ø; I stays I, never ı.
        (i) => accented(i) && fullnameOf(person(i)).toLowerCase().includes(letter) && !chosen(i),
        plain,
      ),
    );
  accents.push(
    ...queriesOf(
      'accents-dropped',
      counts['accents-dropped'] - accents.length,
      store,
      seed,
      (i) => accented(i) && !chosen(i),
      plain,
    ),
  );
  let nth = 0;
  const next = () => nth++;
  const queries: MatchQuery[] = [
    ...of('exact-email', unique, (i, random) => ({
      query: fullnameOf(person(i)),
      properties: [email(pickOf(random, person(i).emails))],
    })),
    ...of('exact-unique', unique, (i) => ({ query: fullnameOf(person(i)), properties: [] })),
    ...of(
      'namesake-email',
      (i) => person(i).namesakes !== undefined,
      (i, random) => ({
        query: fullnameOf(person(i)),
        properties: [email(pickOf(random, person(i).emails))],
      }),
    ),
    // One query per namesake group, about no one in particular: the name alone cannot tell them apart.
    ...of(
      'namesake-alone',
      (i) => {
        const group = person(i).namesakes;
        return group !== undefined && population.findIndex(({ namesakes }) => namesakes === group) === i;
      },
      (i) => ({ query: fullnameOf(person(i)), properties: [] }),
    ).map((query) => ({ ...query, expected: null })),
    ...of('case-spacing', unique, (i) => {
      const name = fullnameOf(person(i));
      const query = (CASE_SPACING[next() % CASE_SPACING.length] as (text: string) => string)(name);
      return query === name || fold(query) !== fold(name) ? null : { query, properties: [] };
    }),
    ...accents,
    ...(() => {
      let n = 0;
      return of('email-only', unique, (i, random) => {
        const { first, last, tradition, emails } = person(i);
        const address = pickOf(random, emails);
        if (n % 2 === 0) {
          n++;
          return { query: address, properties: [] };
        }
        // Another name: a married one, or a column of another person's name beside this one's email.
        const lists = TRADITIONS.find((entry) => entry.tradition === tradition) as Tradition;
        const other = `${first} ${pickOf(random, lists.last)}`;
        if (fold(other) === fold(fullnameOf({ first, last })) || !namesNoOne(store, other)) return null;
        n++;
        return { query: other, properties: [email(address)] };
      });
    })(),
    ...of('swapped', unique, (i) => {
      const { first, last } = person(i);
      const query = next() % 2 === 0 ? `${last}, ${first}` : `${last} ${first}`;
      return namesNoOne(store, query) ? { query, properties: [] } : null;
    }),
    ...of('typo', unique, (i, random) => {
      const name = fullnameOf(person(i));
      const query = typoOf(random, name, next() % 4);
      if (query === null) return null;
      const folded = fold(query);
      if (folded === fold(name) || !withinOneEdit(folded, fold(name))) return null;
      // Well-posed: no other stored name is one edit from it too.
      for (const stored of store.holders.keys())
        if (stored !== fold(name) && withinOneEdit(folded, stored)) return null;
      return { query, properties: [] };
    }),
    ...of(
      'initials',
      (i) => unique(i) && store.initials.get(initialKey(person(i))) === 1,
      (i) => {
        const { first, last } = person(i);
        const initial = Array.from(first)[0] as string;
        const query = next() % 2 === 0 ? `${initial}. ${last}` : `${initial} ${last}`;
        return namesNoOne(store, query) ? { query, properties: [] } : null;
      },
    ),
    ...of(
      'nickname',
      (i) => unique(i) && NICKNAME_TRADITIONS.has(person(i).tradition) && NICKNAMES_OF.has(person(i).first),
      (i, random) => {
        const { first, last } = person(i);
        const nick = pickOf(random, NICKNAMES_OF.get(first) ?? []);
        const query = `${nick} ${last}`;
        // Well-posed: no one else of that last name has a formal name the nickname stands for.
        const formals = FORMAL_OF.get(nick) ?? [];
        const others = formals.filter(
          (formal) => formal !== first && store.holders.has(fold(`${formal} ${last}`)),
        );
        return others.length === 0 && namesNoOne(store, query) ? { query, properties: [] } : null;
      },
    ),
    ...of('email-domain', unique, (i, random) => {
      const [primary] = person(i).emails as [string];
      const [local, domain] = primary.split('@') as [string, string];
      const moved = shuffled(random, DOMAINS)
        .filter((other) => other !== domain)
        .map((other) => `${local}@${other}`)
        .find((address) => !store.emails.has(normaliseEmail(address)));
      return moved ? { query: fullnameOf(person(i)), properties: [email(moved)] } : null;
    }),
    ...absentQueries(store, seed, names),
  ];
  return { population, queries, categories: MATCH_CATEGORIES };
};

export const MATCH_SET = matchSet();

/** Queries in the regression test's slice: few enough for `npm test`, from every category. */
export const SLICE_SIZE = 100;

/** A fixed slice of a set's queries, evenly spread over them, so each category is in it in proportion. */
export const sliceOf = (queries: readonly MatchQuery[], size = SLICE_SIZE): MatchQuery[] =>
  Array.from({ length: size }, (_, n) => queries[Math.floor((n * queries.length) / size)] as MatchQuery);

export const MATCH_SLICE = sliceOf(MATCH_SET.queries);
