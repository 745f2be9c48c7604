package names

import (
	"strings"
)

// Class is a set of word classes from the hand-written lexicon below. The classes are features
// of the tagger (positive evidence such as titles and cue words before a name, negative
// evidence such as months, weekdays, places and organisations), and they keep function words
// out of the name gazetteer.
type Class uint16

// Word classes.
const (
	ClsMonth    Class = 1 << iota // January, Januar, janvier, enero, gennaio, januari, janeiro, styczeń...
	ClsWeekday                    // Monday, Montag, lundi...
	ClsTitle                      // Mr, Frau, Mme, Sr., Dott., dhr., pan...
	ClsParticle                   // van, von, de, da, del, bin...
	ClsCue                        // words right before a name: name, called, bin, appelle, llamo...
	ClsGreeting                   // hi, dear, hallo, bonjour, hola, ciao, beste, olá, cześć...
	ClsClosing                    // regards, thanks, cheers, Grüße, cordialement, saludos...
	ClsOrg                        // Inc, GmbH, Ltd, SA, University, Bank...
	ClsPlace                      // countries and large cities
	ClsStreet                     // Street, Straße, rue, calle, via, straat, rua, ulica...
	ClsFunction                   // function words of the supported languages
	ClsProduct                    // brands and products that look like names
	ClsRole                       // job titles and roles: manager, doctor, Kunde, client...
	ClsLogLevel                   // ERROR, WARN, INFO...
	ClsGeo                        // words that end names of places and buildings: Lake, Hills, Park...
)

var lexiconText = map[Class]string{
	ClsMonth: `january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		januar februar märz maerz mai juni juli oktober dezember jänner
		janvier février fevrier mars avril juin juillet août aout septembre octobre novembre décembre decembre
		enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
		gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
		januari februari maart mei augustus
		janeiro fevereiro março marco maio junho julho setembro outubro novembro dezembro
		styczeń styczen luty marzec kwiecień kwiecien maj czerwiec lipiec sierpień sierpien wrzesień wrzesien
		październik pazdziernik listopad grudzień grudzien stycznia lutego marca kwietnia maja czerwca lipca
		sierpnia września października listopada grudnia`,
	ClsWeekday: `monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
		montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag
		lundi mardi mercredi jeudi vendredi samedi dimanche
		lunes martes miércoles miercoles jueves viernes sábado sabado domingo
		lunedì lunedi martedì martedi mercoledì mercoledi giovedì giovedi venerdì venerdi sabato domenica
		maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
		segunda terça terca quarta quinta sexta
		poniedziałek poniedzialek wtorek środa sroda czwartek piątek piatek sobota niedziela
		today tomorrow yesterday heute morgen gestern aujourd'hui demain hier hoy mañana ayer oggi domani ieri
		vandaag morgen gisteren hoje amanhã ontem dzisiaj jutro wczoraj`,
	ClsTitle: `mr mrs ms miss mx dr prof professor sir dame lady lord rev reverend capt captain col lt sgt
		senator sen judge hon
		herr frau fräulein hr fr dipl ing mag
		m mme mlle monsieur madame mademoiselle me maître pr
		sr sra srta don doña dona señor señora señorita dra lic
		dott dottssa dott.ssa sig sig.ra signor signora signore ing avv geom rag
		dhr mevr mw mevrouw meneer drs ir heer heeren mej mejuffrouw juffrouw wed weduwe
		mister missis mistress sieur veuve witwe mgr
		senhor senhora sr.ª
		pan pani panna państwo mgr inż hab
		general colonel lieutenant sergeant corporal admiral commander commodore marshal bishop archbishop
		cardinal pope rabbi imam pastor earl countess baroness marquess viscount duchess
		graf gräfin freiherr freifrau fürst fürstin prinz prinzessin herzog herzogin kaiser kaiserin
		baronin ritter oberst hauptmann leutnant feldmarschall pfarrer kardinal bischof erzbischof abt pater
		bürgermeister hrn herrn witwe wwe
		évêque archevêque abbé curé princesse duchesse comtesse vicomte vicomtesse marquis marquise baronne
		impératrice général commandant capitaine sergent maréchal amiral sieur veuve mm
		coronel capitán teniente sargento almirante obispo arzobispo cardenal fray sor príncipe princesa
		duquesa condesa marqués marquesa barón baronesa viuda
		generale colonnello capitano tenente sergente ammiraglio vescovo arcivescovo cardinale frate suor
		principe principessa duca duchessa contessa marchese marchesa barone baronessa cav onorevole
		generaal kolonel kapitein luitenant majoor admiraal bisschop aartsbisschop kardinaal pastoor
		koningin prins prinses hertog hertogin graaf gravin barones jonkheer jhr heer heeren heren wed weduwe
		burgemeester
		capitão bispo arcebispo cardeal frei irmã rainha duquesa condessa marquês barão baronesa viúva`,
	ClsParticle: `van von der den de del della delle dei degli di da das dos do du des le la lo ten ter te
		zu zum zur bin ibn al el y e mac mc ap af av`,
	ClsCue: `name names named called call am i'm im me is bin heiße heisse heißt heisst ich
		appelle appelles appelez appelons nom prénom prenom llamo llama llaman nombre apellido
		chiamo chiama chiamano nome cognome heet heten naam achternaam voornaam chamo chama chamam sobrenome
		nazywam nazywa nazwisko imię imie signed sincerely regards from by with contact ask
		mein meine mon ma mi mio mia mijn meu minha mój moja my your his her`,
	ClsGreeting: `hi hello hey dear hallo liebe lieber liebes sehr geehrte geehrter moin servus
		bonjour bonsoir salut cher chère chers coucou hola estimado estimada querido querida buenas
		ciao salve gentile gentilissimo gentilissima caro cara buongiorno buonasera
		beste geachte hoi hey goedemorgen goedemiddag olá ola oi prezado prezada caro cara bom
		cześć czesc witam szanowny szanowna drogi droga dzień dobry`,
	ClsClosing: `regards thanks thank cheers best sincerely yours kind warm greetings love
		grüße gruesse gruß gruss grüßen viele liebe beste herzliche freundliche mfg lg vg
		cordialement amitiés amities bisous merci bien salutations
		saludos atentamente gracias un abrazo
		saluti cordiali distinti grazie
		groeten vriendelijke hartelijke groet bedankt dank
		cumprimentos atenciosamente obrigado obrigada abraços beijos
		pozdrawiam pozdrowienia dziękuję dziekuje serdecznie`,
	ClsOrg: `inc ltd llc plc corp corporation company co group holding holdings partners gmbh ag kg ohg mbh
		sa sas sarl sàrl spa srl bv nv ab as oy sp zoo limited associates foundation association
		bank university universität universitat université universite universidad università universita
		universiteit universidade uniwersytet college school schule école escuela scuola school escola
		szkoła hospital klinik clinic clinique hôpital hopital hospital ospedale ziekenhuis
		museum musée museo institute institut instituto istituto instytut council ministry ministerium
		ministère ministerio ministero ministerie ministério ministerstwo agency agentur agence agencia
		agenzia agentschap agência agencja department team club fc sc band orchestra records studios
		airlines airways railway bahn police polizei gendarmerie policía polizia politie polícia policja
		church kirche église iglesia chiesa kerk igreja kościół party partei parti partido partito partij
		news times post journal gazette tribune herald daily magazine press radio tv television
		services solutions systems technologies software labs media consulting capital ventures industries`,
	ClsPlace: `afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan
		bahrain bangladesh belarus belgium bolivia bosnia brazil bulgaria cambodia cameroon canada chile china
		colombia croatia cuba cyprus czech czechia denmark ecuador egypt england estonia ethiopia europe finland
		france georgia germany ghana greece guatemala hungary iceland india indonesia iran iraq ireland israel
		italy jamaica japan jordan kazakhstan kenya korea kosovo kuwait latvia lebanon libya liechtenstein
		lithuania luxembourg malaysia malta mexico moldova monaco mongolia montenegro morocco nepal netherlands
		zealand nigeria norway pakistan panama paraguay peru philippines poland portugal qatar romania russia
		scotland senegal serbia singapore slovakia slovenia somalia spain sudan sweden switzerland syria taiwan
		thailand tunisia turkey ukraine uruguay venezuela vietnam wales yemen america africa asia
		deutschland österreich schweiz frankreich spanien italien niederlande polen belgien
		allemagne autriche suisse espagne italie pays-bas pologne belgique angleterre
		alemania austria suiza francia españa italia países bélgica inglaterra
		germania svizzera francia spagna olanda polonia belgio inghilterra
		duitsland oostenrijk zwitserland frankrijk spanje italië nederland polen belgië engeland
		alemanha áustria suíça frança espanha itália holanda polónia polônia bélgica inglaterra brasil
		niemcy austria szwajcaria francja hiszpania włochy holandia polska belgia anglia
		london paris berlin madrid rome roma milan milano munich münchen hamburg vienna wien zurich zürich
		geneva genève amsterdam rotterdam brussels bruxelles brussel antwerp antwerpen lisbon lisboa porto
		warsaw warszawa krakow kraków gdansk gdańsk wroclaw wrocław poznan poznań lodz łódź barcelona valencia
		seville sevilla bilbao naples napoli turin torino florence firenze venice venezia bologna genoa
		genova lyon marseille toulouse nice bordeaux lille nantes strasbourg cologne köln frankfurt stuttgart
		düsseldorf dresden leipzig hannover bremen dublin edinburgh glasgow manchester liverpool birmingham
		leeds bristol oxford cambridge prague praha budapest bucharest sofia athens istanbul moscow kyiv kiev
		copenhagen stockholm oslo helsinki new york chicago boston seattle houston dallas miami atlanta
		denver phoenix toronto montreal vancouver ottawa sydney melbourne tokyo beijing shanghai delhi mumbai
		bangalore singapore dubai cairo lagos nairobi johannesburg rio janeiro são sao paulo buenos aires lima
		bogotá bogota santiago caracas havana utrecht eindhoven groningen den haag hague ghent gent liège
		luxemburg basel bern lausanne graz salzburg innsbruck linz coimbra braga faro málaga malaga zaragoza
		palermo catania verona padova trieste bari
		alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii
		idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan
		minnesota mississippi missouri montana nebraska nevada hampshire jersey mexico carolina dakota
		ohio oklahoma oregon pennsylvania rhode tennessee texas utah vermont virginia washington wisconsin
		wyoming ontario quebec québec alberta manitoba saskatchewan nova scotia brunswick newfoundland
		yukon tasmania queensland victoria bavaria bayern hessen sachsen saxony tyrol tirol tyrolean
		andalusia andalucía catalonia cataluña galicia castile castilla navarra tuscany toscana sicily
		sicilia sardinia sardegna lombardy lombardia piedmont piemonte veneto normandy normandie brittany
		bretagne provence alsace burgundy bourgogne flanders vlaanderen wallonia holland friesland
		limburg brabant zeeland algarve alentejo minho silesia śląsk pomerania mazovia galicia
		yorkshire lancashire kent essex sussex surrey cornwall devon wales ulster munster leinster
		connacht lincolnshire norfolk suffolk cheshire derbyshire oxfordshire cumbria northumberland
		manila jakarta bangkok hanoi saigon seoul busan osaka kyoto taipei karachi lahore dhaka kolkata
		chennai hyderabad goa tehran baghdad riyadh jeddah doha abu dhabi kuwait beirut damascus amman
		jerusalem tel aviv ankara izmir athens thessaloniki belgrade zagreb ljubljana sarajevo skopje
		tirana bratislava vilnius riga tallinn minsk odessa kharkiv tbilisi yerevan baku almaty
		tashkent kabul islamabad colombo kathmandu ulaanbaatar montevideo asunción asuncion quito la paz
		havana kingston panama guatemala tegucigalpa managua san josé jose salvador medellín medellin
		cali guadalajara monterrey tijuana puebla recife fortaleza manaus belém salvador curitiba
		porto alegre montréal calgary edmonton winnipeg halifax anchorage honolulu detroit cleveland
		pittsburgh philadelphia baltimore richmond memphis nashville orleans austin dallas houston
		antonio diego francisco jose sacramento portland seattle spokane boise vegas reno tucson
		albuquerque omaha minneapolis milwaukee indianapolis cincinnati louisville charlotte raleigh
		orlando tampa jacksonville savannah charleston buffalo rochester albany hartford providence
		brisbane adelaide perth hobart darwin canberra auckland wellington christchurch nairobi addis
		ababa accra dakar abidjan kinshasa luanda harare lusaka maputo durban cape tunis algiers
		casablanca rabat marrakesh tripoli khartoum
		german germans french english spanish italian dutch polish portuguese american americans british
		jewish jews christian christians muslim muslims catholic catholics protestant hungarian russian
		chinese japanese korean vietnamese indian irish scottish welsh swedish norwegian danish finnish
		greek turkish arab arabic african european asian latin mexican brazilian canadian australian
		austrian swiss belgian czech slovak serbian croatian romanian bulgarian ukrainian filipino
		deutsch deutsche deutschen französisch englisch spanisch italienisch niederländisch polnisch
		français française anglais espagnol italien néerlandais polonais portugais allemand
		español española inglés francés alemán italiano portugués
		tedesco inglese francese spagnolo olandese polacco portoghese
		nederlands duits frans engels spaans italiaans pools portugees
		português inglês francês alemão espanhol polaco
		polski niemiecki angielski francuski hiszpański włoski`,
	ClsStreet: `street st road rd avenue ave lane ln drive dr boulevard blvd way court ct place square close
		crescent terrace parkway highway
		straße strasse str weg gasse platz allee ring damm ufer
		rue chemin allée allee impasse quai boulevard
		calle avenida carrera paseo plaza camino
		via viale piazza corso vicolo largo
		laan straat plein gracht kade singel
		rua travessa praça praca alameda
		ulica ul aleja al osiedle plac`,
	// Function words; the last line holds the words for God, which are never a person's name
	// ("Oh my God", "Mon Dieu") although the name lists know some of them.
	ClsFunction: `the a an and or but if then of in on at to for from with by as is are was were be been
		this that these those it its he she they we you i me him them us my your our their his her not no
		yes so do does did have has had will would can could should may might must shall here there what
		which who whom where when why how all any some each every please thanks just also very about
		der die das den dem des ein eine einen einem einer und oder aber wenn dann von zu mit bei aus für
		auf an in im ist sind war waren sein hat haben wird werden kann können ich du er sie es wir ihr
		nicht kein keine ja nein auch noch schon nur sehr wie was wer wo wann warum bitte danke
		le la les un une des du de et ou mais si alors à au aux en dans sur pour par avec est sont était
		être a ont je tu il elle nous vous ils elles ne pas oui non aussi très comme que qui quoi où quand
		pourquoi merci
		el la los las un una unos unas y o pero si entonces de del al a en con por para es son era ser ha
		han yo tú él ella nosotros vosotros ellos ellas no sí también muy como que quien qué donde cuando
		por favor gracias
		il lo la i gli le un uno una e o ma se allora di del della a al da in con per su è sono era essere
		ha hanno io tu lui lei noi voi loro non sì anche molto come che chi cosa dove quando perché grazie
		de het een en of maar als dan van naar met bij uit voor op aan in is zijn was waren heeft hebben
		wordt worden kan kunnen ik jij je hij zij ze wij we jullie niet geen ja nee ook nog al heel hoe wat
		wie waar wanneer waarom alstublieft dank
		o a os as um uma uns umas e ou mas se então de do da dos das ao em no na com por para é são era
		ser tem têm eu tu ele ela nós vós eles elas não sim também muito como que quem onde quando porquê
		obrigado
		i w z na do od dla jest są był była być ma mają ja ty on ona ono my wy oni one nie tak też bardzo
		jak co kto gdzie kiedy dlaczego proszę dziękuję
		god gott dieu dios dio deus bóg allah`,
	ClsProduct: `iphone ipad macbook android windows linux ubuntu excel outlook gmail chrome firefox safari
		google microsoft apple amazon facebook instagram twitter linkedin youtube netflix spotify whatsapp
		telegram signal slack zoom teams skype tiktok uber airbnb paypal stripe visa mastercard amex tesla
		bmw audi mercedes volkswagen vw porsche toyota honda ford fiat renault peugeot volvo ikea lidl aldi
		zara samsung sony nokia huawei xiaomi dell lenovo intel nvidia oracle sap salesforce github gitlab
		docker kubernetes python java javascript typescript golang rust kotlin swift postgres mysql redis`,
	ClsRole: `manager director president ceo cto cfo founder chairman secretary assistant engineer developer
		doctor nurse teacher professor student customer client user admin administrator support team staff
		colleague colleagues friend friends mom mum dad mother father sister brother wife husband son
		daughter boss landlord neighbour neighbor
		kunde kundin chef chefin kollege kollegin arzt ärztin lehrer lehrerin mutter vater bruder schwester
		client cliente collègue médecin professeur mère père frère sœur soeur
		jefe jefa compañero compañera médico médica profesor profesora madre padre hermano hermana
		capo collega medico professore professoressa madre padre fratello sorella
		klant baas collega dokter leraar moeder vader broer zus
		chefe colega médico professor professora mãe pai irmão irmã
		klient klientka szef szefowa kolega koleżanka lekarz nauczyciel matka ojciec brat siostra
		minister ministre ministro generaal general général generale kolonel colonel oberst coronel colonnello
		governor gouverneur gobernador governatore mayor maire bürgermeister burgemeester sindaco alcalde prefeito
		agent agente agents nommé nommée sogenannte genaamd llamado chamado
		kaufmann koopman négociant merchant comerciante commerciante buurman voisin nachbar vecino vicino vizinho
		commissaris commissaire kommissar inspecteur inspektor oberinspektor ispettore
		direktor direktorin doktor präsident präsidentin hauptmann leutnant ingenieur verwalter obmann
		advocaat avocat anwalt rechtsanwalt lawyer abogado avvocato advogado notaris notaire notar
		pastoor pfarrer curé abbé pastor priest
		großmeister grossmeister altmeister kandidaat candidat kandidat candidate
		schilder maler peintre painter componist komponist compositeur composer
		schrijver schriftsteller écrivain writer dichter poète poet
		sänger zanger chanteur chanteuse singer`,
	ClsLogLevel: `error warn warning info debug trace fatal critical notice err dbg inf wrn crit`,
	ClsGeo: `lake lakes hills hill park river valley bay island islands mountain mountains mount falls springs
		beach heights county stadium arena hall centre center bridge castle tower church cathedral abbey palace
		garden gardens forest sea ocean canyon creek harbor harbour port point cape peninsula desert airport
		station square market run ridge field fields woods grove glen dale vale moor marsh lane road street
		avenue boulevard highway bridge gate wharf pier dam reservoir gulf strait channel coast shore
		bypass trail trails cliff cliffs loop mall points greens pass rapids flats cove coves crossing estates
		plaza terrace parkway pike crescent mews junction expressway freeway turnpike villas manor meadows
		orchard pines ranch shoals summit knoll knolls landing locks lodge mills plains prairie underpass
		viaduct village villages
		see berg berge tal wald feld dorf burg bach fluss platz brücke hafen insel
		lac mont montagne rivière pont port île plage vallée forêt
		lago monte río rio puente puerto isla playa valle sierra
		lago monte fiume ponte porto isola spiaggia valle
		meer berg dal bos veld brug haven eiland strand
		lagoa serra ponte porto ilha praia vale
		jezioro góra rzeka most port wyspa plaża dolina`,
}

// lexicon maps a lower-case word to its classes; built once and only read.
var lexicon = buildLexicon()

func buildLexicon() map[string]Class {
	m := map[string]Class{}
	for c, text := range lexiconText {
		for _, w := range strings.Fields(text) {
			m[w] |= c
		}
	}
	return m
}

// Lookup returns the lexicon classes of a lower-case word.
func Lookup(lower string) Class { return lexicon[lower] }
